/**
 * Tool names: a model's tools are `{prefix}_{method}` and `{prefix}_{action}` (the prefix is
 * the Resource's, src/core/toolPrefix.ts), a custom tool has its own name. Names must be
 * portable across every MCP client: `^[a-z][a-z0-9_]*$`, ≤ 48 chars.
 */
import type { Resource } from "../core/resource.js";

const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]*$/;
export const MAX_TOOL_NAME_LENGTH = 48;

/** What the start-up error suggests, per kind of name. */
const HINTS = {
  crud: "Set mcp.toolPrefix.",
  action: "Action names must be snake_case; set mcp.toolPrefix for a shorter prefix.",
  custom: "Custom tool names must be snake_case.",
  prompt: "Prompt names must be snake_case.",
} as const;

/** A name to build: a model's (its prefix, then the method or action), or a custom tool's own. */
type NameParts =
  | { kind: "crud" | "action"; resource: Resource; name: string }
  | { kind: "custom" | "prompt"; name: string };

/** The one tool-name builder: `todos_list`, `todos_complete`, `stats`; not portable fails at start-up. */
export function toolName(parts: NameParts): string {
  const name = "resource" in parts ? `${parts.resource.toolPrefix}_${parts.name}` : parts.name;
  if (!TOOL_NAME_PATTERN.test(name) || name.length > MAX_TOOL_NAME_LENGTH) {
    throw new Error(
      `terreno-mcp: ${parts.kind === "prompt" ? "prompt" : "tool"} name "${name}" is not portable: it must match ${TOOL_NAME_PATTERN} and be at most ${MAX_TOOL_NAME_LENGTH} characters. ${HINTS[parts.kind]}`,
    );
  }
  return name;
}
