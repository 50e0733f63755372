/**
 * The tool surfaces' shared answers to an unknown (or unseen) tool and to arguments that are
 * not the tool's, built here once for MCP, AI, REST and the chat. (Any thrown value becomes a
 * TerrenoError through the core's normalizeError.)
 */
import { type FieldErrors, TerrenoError, validationFailed } from "../core/errors.js";
import { MAX_TOOL_NAME_LENGTH } from "./naming.js";

/** The answer to a tool that does not exist, or that this caller does not see: the same. */
export function unknownTool(name: string): TerrenoError {
  return new TerrenoError(
    "unknown_tool",
    `Unknown tool: ${name.slice(0, MAX_TOOL_NAME_LENGTH)}. Call tools/list for the available tools.`,
  );
}

/** One wording for every surface; the fields name each path once (errorText lists them). */
export function invalidArguments(toolName: string, fields: FieldErrors): TerrenoError {
  return validationFailed(`Invalid arguments for ${toolName}.`, fields);
}
