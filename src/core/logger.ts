/**
 * The one logger every surface reports server faults to. Its shape is pino's
 * (`logger.error(object, message)`), so a pino, bunyan-style or console logger fits.
 */
import type { TerrenoError } from "./errors.js";

export interface Logger {
  error(object: Record<string, unknown>, message?: string): void;
  warn(object: Record<string, unknown>, message?: string): void;
  info(object: Record<string, unknown>, message?: string): void;
}

export const consoleLogger: Logger = {
  error: (object, message) => console.error(message ?? "", object),
  warn: (object, message) => console.warn(message ?? "", object),
  info: (object, message) => console.info(message ?? "", object),
};

/**
 * Logs a failure when it is the server's problem (a fault or an outage); a caller's mistake
 * is answered, not logged. `where` names the route or tool.
 */
export function reportFailure(
  logger: Logger,
  error: TerrenoError,
  where: { surface: string; operation?: string },
): void {
  if (error.status < 500) return;
  logger.error(
    {
      err: error.cause ?? error,
      code: error.code,
      surface: where.surface,
      operation: where.operation,
    },
    `terreno-mcp: ${where.operation ?? where.surface} failed (${error.code})`,
  );
}
