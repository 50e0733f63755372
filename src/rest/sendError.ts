/**
 * REST's one error mapping: any thrown value → the documented JSON error body and status.
 * Internal details go to the log, never to the client.
 */
import type { NextFunction, Request, Response } from "express";
import { TerrenoError, toErrorBody } from "../core/errors.js";
import { normalizeError } from "../core/normalizeError.js";

export type ErrorLogger = (message: string, error: unknown) => void;

const defaultLogger: ErrorLogger = (message, error) => console.error(message, error);

interface HttpErrorLike {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
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

export function sendError(res: Response, error: unknown, log: ErrorLogger = defaultLogger): void {
  const terrenoError = toTerrenoError(error);
  if (terrenoError.code === "internal" || terrenoError.code === "database_unavailable") {
    log(`terreno-mcp: ${terrenoError.code}`, terrenoError.cause ?? error);
  }
  if (terrenoError.code === "unauthenticated") {
    res.setHeader("WWW-Authenticate", 'Bearer realm="api"');
  }
  res.status(terrenoError.status).json(toErrorBody(terrenoError));
}

export function errorMiddleware(log?: ErrorLogger) {
  return (error: unknown, _req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) {
      next(error);
      return;
    }
    sendError(res, error, log);
  };
}
