/**
 * What an AI SDK tool hands back. Failures a model can act on (validation, permission, not
 * found, conflict, database down) are tool RESULTS, not thrown errors, carrying the same
 * ErrorBody as REST and the same text as MCP's `isError` results. Unexpected faults become
 * a fixed `internal` body: the cause is logged, never returned.
 */
import type { JSONValue, ToolResultPart } from "ai";
import { type ErrorBody, type TerrenoError, toErrorBody } from "../../core/errors.js";
import type { PlainObject } from "../../core/types.js";
import { errorText } from "../errorText.js";

/** What `toModelOutput` returns (the AI SDK does not export the type by name). */
type ToolResultOutput = ToolResultPart["output"];

/** A failed call: `{ error: { status, title, detail, code, fields? } }`. */
export interface MCPToolErrorOutput {
  error: ErrorBody;
}

/** A tool's result: the MCP `structuredContent` on success (`{data, ...}`), else `{error}`. */
export type MCPToolOutput = PlainObject | MCPToolErrorOutput;

/** Server faults carry the fixed `internal` text: toErrorBody never lets their own text out. */
export function errorOutput(error: TerrenoError): MCPToolErrorOutput {
  return { error: toErrorBody(error) };
}

function isErrorOutput(output: unknown): output is MCPToolErrorOutput {
  if (typeof output !== "object" || output === null || !("error" in output)) return false;
  const { error } = output as { error: unknown };
  return typeof error === "object" && error !== null && "code" in error && "detail" in error;
}

/**
 * What the model reads: a success as JSON (the AI SDK default), an error as `error-text`
 * with exactly MCP's text (`code: detail fields.` then the JSON body), so providers that
 * flag tool errors (e.g. Anthropic's `is_error`) do so, as MCP clients do for `isError`.
 */
export function toModelOutput({ output }: { output: unknown }): ToolResultOutput {
  if (isErrorOutput(output)) return { type: "error-text", value: errorText(output.error) };
  return { type: "json", value: (output ?? null) as JSONValue };
}
