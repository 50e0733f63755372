/**
 * The first step of every operation, on every surface: the method exists on this surface
 * (405), the caller may be anonymous here (401), the caller's token scope allows the method
 * (403, src/core/scopes.ts), and the method-level permissions pass (401/403). Returns the
 * view the rest of the operation is judged by.
 */
import { methodNotAllowed, unauthenticated } from "./errors.js";
import { checkPermissions } from "./permissions.js";
import { type Resource, viewFor } from "./resource.js";
import { assertScopeAllows } from "./scopes.js";
import type { CrudMethod, RequestContext } from "./types.js";
import type { SurfaceView } from "./view.js";

export async function authorize(
  resource: Resource,
  ctx: RequestContext,
  method: CrudMethod,
): Promise<SurfaceView> {
  const view = viewFor(resource, ctx.transport);
  if (!view.methods.has(method)) throw methodNotAllowed(method);
  if (!ctx.user && !view.anonymous) throw unauthenticated();
  // A read-scoped token may list and read only, whatever the permissions say.
  assertScopeAllows(ctx, method);
  await checkPermissions(resource.options.permissions, method, ctx.user);
  return view;
}
