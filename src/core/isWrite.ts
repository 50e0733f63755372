/**
 * Whether an operation writes: THE rule, read by scopes, rate limits, approvals, OpenAPI,
 * audit and tool annotations. A CRUD method writes unless it is `list` or `read`; anything
 * else (an action, a custom or discovery tool) writes unless annotated `readOnlyHint: true`.
 */
import { CRUD_METHODS } from "./types.js";

/** What the rule reads of an operation: its method and, for non-CRUD ones, its annotations. */
export interface WriteSubject {
  /** A CRUD method, or an action's or tool's name; absent for a tool with no method. */
  method?: string;
  annotations?: { readOnlyHint?: boolean };
}

const CRUD = new Set<string>(CRUD_METHODS);

/** `isWrite("update")`, `isWrite(toolDefinition)`, `isWrite(actionConfig)`. */
export function isWrite(operation: string | WriteSubject): boolean {
  const { method, annotations } =
    typeof operation === "string" ? { method: operation, annotations: undefined } : operation;
  if (method !== undefined && CRUD.has(method)) return method !== "list" && method !== "read";
  return annotations?.readOnlyHint !== true;
}
