import type { Logger } from "../../src/core/logger.js";

/** What a logger was given at one level. */
export interface Logged {
  object: Record<string, unknown>;
  message?: string;
}

/** A logger that keeps what it is given at error level (`errors`) and drops the rest. */
export function errorLogger(): { logger: Logger; errors: Logged[] } {
  const errors: Logged[] = [];
  return {
    errors,
    logger: {
      error: (object, message) => {
        errors.push({ object, message });
      },
      warn: () => {},
      info: () => {},
    },
  };
}

/**
 * A server log to read back: `logger` (server faults) and `logging` (one line per request) for
 * an app's options, and `serverErrors()`, the 5xx lines and faults it saw.
 */
export function serverLog() {
  const lines: string[] = [];
  const faults: string[] = [];
  const record = (object: Record<string, unknown>, message?: string) => {
    faults.push(`${message ?? ""} ${String((object.err as Error | undefined)?.message ?? "")}`);
  };
  return {
    appOptions: {
      logging: (line: string) => lines.push(line),
      logger: { error: record, warn: () => {}, info: () => {} },
    },
    serverErrors: () => [...lines.filter((line) => / 5\d\d /.test(line)), ...faults],
  };
}
