/**
 * The HTTP edge's one error answer for JSON routes (REST, the auth routes, the app's own
 * refusals): any thrown value → the documented JSON error body and status, with server
 * faults reported to the app's logger and never to the client.
 */
import type { NextFunction, Request, Response } from "express";
import { toErrorBody } from "../core/errors.js";
import { type Logger, reportFailure } from "../core/logger.js";
import { bodyFailure } from "./bodyErrors.js";
import { setErrorCode } from "./errorCode.js";

/** `logger`: where a server fault is reported, the app's (handed over when routes are mounted). */
export function sendError(res: Response, error: unknown, logger: Logger): void {
  const terrenoError = bodyFailure(error);
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
  setErrorCode(res, terrenoError.code);
  res.status(terrenoError.status).json(toErrorBody(terrenoError));
}

export function errorMiddleware(logger: Logger) {
  return (error: unknown, _req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) {
      next(error);
      return;
    }
    sendError(res, error, logger);
  };
}
