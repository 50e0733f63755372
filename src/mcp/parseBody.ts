/**
 * /mcp's body parsing, with the HTTP edge's rules (src/http/bodyErrors.ts): every parser
 * failure answers in JSON-RPC's shape, and a body nested too deep is refused right after
 * parsing, before anything walks it recursively (the key check, the SDK's schema parse, its
 * adapter's JSON.stringify): a 400 -32600, never a stack overflow.
 */
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from "express";
import { type Logger, reportFailure } from "../core/logger.js";
import { bodyFailure, bodyTooDeep } from "../http/bodyErrors.js";
import { requestId, sendJsonRpcError } from "./jsonRpcError.js";

export function parseMcpBody(limit: string | number, logger: Logger): RequestHandler[] {
  const parseErrors = (error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const failure = bodyFailure(error, "parse_error");
    if (failure.status >= 500)
      reportFailure(logger, failure, { surface: "mcp", operation: "parse" });
    sendJsonRpcError(res, failure);
  };
  const limitDepth = (req: Request, res: Response, next: NextFunction) => {
    const tooDeep = bodyTooDeep(req.body, "invalid_request");
    if (!tooDeep) return next();
    sendJsonRpcError(res, tooDeep, requestId(req.body));
  };
  return [
    // Not strict: a `null` or scalar body is valid JSON, so the SDK answers it with -32600.
    express.json({ limit, strict: false }),
    parseErrors as unknown as RequestHandler,
    limitDepth,
  ];
}
