/**
 * Tool names: `{prefix}_{method}`, where the default prefix is the pluralized snake_case
 * model name. Names must be portable across every MCP client: `^[a-z][a-z0-9_]*$`, ≤ 48 chars.
 */
import pluralize from "pluralize";
import type { CrudMethod } from "../core/types.js";

export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]*$/;
export const MAX_TOOL_NAME_LENGTH = 48;

/** `FoodItem` → `food_items`, `HTTPLog` → `http_logs`. */
export function defaultToolPrefix(modelName: string): string {
  const snake = modelName
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .toLowerCase()
    .replace(/^_+|_+$/g, "");
  const parts = snake.split("_");
  parts[parts.length - 1] = pluralize(parts[parts.length - 1]);
  return parts.join("_");
}

export function toolName(prefix: string, method: CrudMethod): string {
  const name = `${prefix}_${method}`;
  if (!TOOL_NAME_PATTERN.test(name) || name.length > MAX_TOOL_NAME_LENGTH) {
    throw new Error(
      `terreno-mcp: tool name "${name}" is not portable: it must match ${TOOL_NAME_PATTERN} and be at most ${MAX_TOOL_NAME_LENGTH} characters. Set mcp.toolPrefix.`,
    );
  }
  return name;
}
