/** How /mcp answers a refusal before the SDK runs: the error table's HTTP status, as JSON-RPC. */
import type { Response } from "express";
import { type TerrenoError, toErrorBody } from "../core/errors.js";
import { setErrorCode } from "../http/errorCode.js";

/** The id of the JSON-RPC request in `body`, when it has a usable one. */
export function requestId(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null | undefined)?.id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

function errorMessage(error: TerrenoError, id: string | number | null) {
  const body = toErrorBody(error);
  return {
    jsonrpc: "2.0",
    error: {
      code: error.spec.jsonRpc,
      message: `${body.code}: ${body.detail}`,
      data: { error: body },
    },
    id,
  };
}

/** A transport-level failure, from the one error table: its HTTP status and JSON-RPC code. */
export function sendJsonRpcError(
  res: Response,
  error: TerrenoError,
  id: string | number | null = null,
): void {
  for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
  setErrorCode(res, error.code);
  res.status(error.status).json(errorMessage(error, id));
}

/** The same failure as a web `Response`, for the handler that answers with one (httpHandler.ts). */
export function jsonRpcErrorResponse(error: TerrenoError): globalThis.Response {
  const headers = new Headers({ "Content-Type": "application/json", ...error.headers });
  return new globalThis.Response(JSON.stringify(errorMessage(error, null)), {
    status: error.status,
    headers,
  });
}
