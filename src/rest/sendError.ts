/**
 * REST's one error mapping: any thrown value → the documented JSON error body and status,
 * with server faults reported to the app's logger and never to the client.
 */
import type { NextFunction, Request, Response } from "express";
import { TerrenoError, toErrorBody } from "../core/errors.js";
import { consoleLogger, type Logger, reportFailure } from "../core/logger.js";
import { normalizeError } from "../core/normalizeError.js";

interface HttpErrorLike {
  status?: number;
  statusCode?: number;
  type?: string;
}

/** Body-parser and other http-errors style failures carry a status; keep it, drop their text. */
function fromHttpError(error: unknown): TerrenoError | undefined {
  if (typeof error !== "object" || error === null || error instanceof TerrenoError)
    return undefined;
  const { status, statusCode, type } = error as HttpErrorLike;
  const code = status ?? statusCode;
  if (type === "entity.parse.failed") {
    return new TerrenoError("validation_failed", "The request body is not valid JSON.");
  }
  if (code === 413 || type === "entity.too.large") {
    return new TerrenoError("payload_too_large", "The request body is too large.");
  }
  if (code === 415 || type === "charset.unsupported" || type === "encoding.unsupported") {
    return new TerrenoError(
      "unsupported_media_type",
      "The request body's encoding is not supported.",
    );
  }
  if (code === 400) {
    return new TerrenoError("validation_failed", "The request could not be read.");
  }
  return undefined;
}

export function toTerrenoError(error: unknown): TerrenoError {
  return fromHttpError(error) ?? normalizeError(error);
}

/** The logger TerrenoApp registered on the Express app, else the console. */
export function loggerOf(req: Request | undefined): Logger {
  const logger: unknown = req?.app?.locals?.terrenoLogger;
  return (logger as Logger | undefined) ?? consoleLogger;
}

export function sendError(res: Response, error: unknown, logger: Logger = loggerOf(res.req)): void {
  const terrenoError = toTerrenoError(error);
  reportFailure(logger, terrenoError, {
    surface: "rest",
    operation: res.req
      ? `${res.req.method} ${res.req.baseUrl}${res.req.route?.path ?? ""}`
      : undefined,
  });
  if (terrenoError.code === "unauthenticated" && !res.getHeader("WWW-Authenticate")) {
    res.setHeader("WWW-Authenticate", 'Bearer realm="api"');
  }
  for (const [name, value] of Object.entries(terrenoError.headers ?? {}))
    res.setHeader(name, value);
  // Read by the HTTP telemetry (src/ops/telemetry.ts) as the span's `error.type`.
  res.locals.terrenoErrorCode = terrenoError.code;
  res.status(terrenoError.status).json(toErrorBody(terrenoError));
}

export function errorMiddleware(logger?: Logger) {
  return (error: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) {
      next(error);
      return;
    }
    sendError(res, error, logger ?? loggerOf(req));
  };
}
