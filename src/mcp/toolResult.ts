/**
 * MCP's one error mapping. Tool failures a model can act on (validation, permission, not
 * found, conflict, database down) become `isError` results carrying the same code and
 * message as REST; unexpected faults become JSON-RPC -32603 with no internals.
 */
import {
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
} from "@modelcontextprotocol/server";
import { type ErrorBody, type TerrenoError, toErrorBody } from "../core/errors.js";
import type { PlainObject } from "../core/types.js";

export function successResult(output: PlainObject): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(output) }], structuredContent: output };
}

/** The error as a model reads it: one line to act on, then the machine-readable body. */
export function errorText(body: ErrorBody): string {
  const fields = body.fields
    ? ` ${Object.entries(body.fields)
        .map(([path, reason]) => `${path}: ${reason}`)
        .join("; ")}.`
    : "";
  return `${body.code}: ${body.detail}${fields}\n${JSON.stringify({ error: body })}`;
}

export function errorResult(error: TerrenoError): CallToolResult {
  if (error.code === "internal") {
    throw new ProtocolError(ProtocolErrorCode.InternalError, "Internal error");
  }
  // No structuredContent: it would have to match the success outputSchema.
  return { isError: true, content: [{ type: "text", text: errorText(toErrorBody(error)) }] };
}
