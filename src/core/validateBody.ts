/**
 * Validates a create/update body against the surface's write schema (the same schema MCP
 * advertises), after the structural key checks. System, hidden and read-only fields are
 * absent from that schema, so naming one is refused rather than silently dropped.
 */
import { validationFailed } from "./errors.js";
import { assertSafeDocumentKeys } from "./inputSafety.js";
import { type Resource, surfaceOf } from "./resource.js";
import type { PlainObject, RequestContext } from "./types.js";

export function validateBody(
  resource: Resource,
  ctx: RequestContext,
  mode: "create" | "update",
  body: unknown,
): PlainObject {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw validationFailed("The body must be a JSON object.", { "(root)": "must be an object" });
  }
  assertSafeDocumentKeys(body);
  const view = resource.views[surfaceOf(ctx.transport)];
  const result = mode === "create" ? view.validateCreate(body) : view.validateUpdate(body);
  if (!result.ok) {
    throw validationFailed(result.message, result.fields);
  }
  return { ...(body as PlainObject) };
}
