/**
 * MCP's mapping of a tool call's outcome, read from the one error table: failures a model
 * can act on become `isError` results carrying the same body as REST; faults become a
 * JSON-RPC error with no internals.
 */
import { type CallToolResult, ProtocolError } from "@modelcontextprotocol/server";
import { type TerrenoError, toErrorBody } from "../core/errors.js";
import type { PlainObject } from "../core/types.js";
import { errorText } from "../tools/errorText.js";

export function successResult(output: PlainObject): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(output) }], structuredContent: output };
}

/**
 * A JSON-RPC error that keeps the failure it answers, so the endpoint can give a refusal HTTP
 * states itself (429 + Retry-After) its own status (requestState.ts).
 */
export class TerrenoProtocolError extends ProtocolError {
  readonly failure: TerrenoError;

  constructor(failure: TerrenoError) {
    const body = toErrorBody(failure);
    super(failure.spec.jsonRpc, `${body.code}: ${body.detail}`, { error: body });
    this.failure = failure;
  }
}

/** A TerrenoError as a JSON-RPC error: `code: detail` as the message, the error body as data. */
export function protocolError(error: TerrenoError): ProtocolError {
  return new TerrenoProtocolError(error);
}

export function errorResult(error: TerrenoError): CallToolResult {
  if (!error.spec.toolResult) throw protocolError(error);
  // No structuredContent: it would have to match the success outputSchema.
  return { isError: true, content: [{ type: "text", text: errorText(toErrorBody(error)) }] };
}
