/**
 * The first step of every CRUD operation, on every surface: the method exists on this
 * surface (405), then the one verdict (src/core/verdict.ts: anonymous 401, token scope 403,
 * method-level permissions 401/403). Returns the view the rest of the operation is judged by.
 */

import { callerView } from "./callerView.js";
import { methodNotAllowed } from "./errors.js";
import { isWrite } from "./isWrite.js";
import { type Resource, viewFor } from "./resource.js";
import type { CrudMethod, RequestContext } from "./types.js";
import { type AccessRule, assertAllowed, cachedRule, type RuleCache } from "./verdict.js";
import type { SurfaceView } from "./viewTypes.js";

const rules: RuleCache = new WeakMap();

/** The verdict's rule for `method` on one surface's view of `resource`, built once. */
export function crudAccess(resource: Resource, view: SurfaceView, method: CrudMethod): AccessRule {
  return cachedRule(rules, view, method, () => ({
    method,
    write: isWrite(method),
    anonymous: view.anonymous,
    permissions: resource.options.permissions[method] ?? [],
    workspace: Boolean(resource.options.workspace),
  }));
}

export async function authorize(
  resource: Resource,
  ctx: RequestContext,
  method: CrudMethod,
): Promise<SurfaceView> {
  const view = viewFor(resource, ctx.transport);
  // The view holds only enabled methods (permissions set and non-empty).
  if (!view.methods.has(method)) throw methodNotAllowed(method);
  await assertAllowed(crudAccess(resource, view, method), ctx);
  // The rest of the operation sees what this caller's field rules let them see.
  return callerView(resource, ctx);
}
