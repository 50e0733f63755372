/**
 * The error code a response answered with, for the HTTP telemetry (src/ops/telemetry.ts), which
 * names the request's span and error count after it (`error.type`). Written by whoever answers
 * the refusal (sendError.ts, MCP's JSON-RPC errors), read once when the response ends.
 */
import type { Response } from "express";

const codes = new WeakMap<Response, string>();

/** Records the code `res` is answered with; the last one written wins. */
export function setErrorCode(res: Response, code: string): void {
  codes.set(res, code);
}

/** The code `res` was answered with, when an error answer recorded one. */
export function errorCodeOf(res: Response): string | undefined {
  return codes.get(res);
}
