/**
 * The tool surfaces' shared answers: an unknown (or unseen) tool, and any thrown value as a
 * TerrenoError from the one error table. Built here once for MCP, AI, REST and the chat.
 */
import { TerrenoError } from "../core/errors.js";
import { normalizeError } from "../core/normalizeError.js";
import { MAX_TOOL_NAME_LENGTH } from "./naming.js";

/** The answer to a tool that does not exist, or that this caller does not see: the same. */
export function unknownTool(name: string): TerrenoError {
  return new TerrenoError(
    "unknown_tool",
    `Unknown tool: ${name.slice(0, MAX_TOOL_NAME_LENGTH)}. Call tools/list for the available tools.`,
  );
}

/** Any thrown value as a TerrenoError: ours as they are, anything else through normalizeError. */
export function asTerrenoError(error: unknown): TerrenoError {
  return error instanceof TerrenoError ? error : normalizeError(error);
}
