/**
 * The view one call is judged and presented by: the surface's view, narrowed or widened by the
 * router's field rules (fieldRules.ts) as they answer for the caller. A resource with no field
 * rules has one view per surface, built once; with rules, callers who get the same answers
 * share one view, built the first time it is needed (at most `MAX_VIEWS` kept per resource).
 */
import { denialsOf, fieldVerdicts } from "./fieldRules.js";
import { type Resource, surfaceOf } from "./resource.js";
import type { RequestContext } from "./types.js";
import { buildView } from "./view.js";
import type { SurfaceView } from "./viewTypes.js";

const MAX_VIEWS = 64;

const byResource = new WeakMap<Resource, Map<string, SurfaceView>>();

export async function callerView(
  resource: Resource,
  ctx: Pick<RequestContext, "transport" | "user" | "scopes" | "workspace">,
): Promise<SurfaceView> {
  const surface = surfaceOf(ctx.transport);
  const rules = resource.options.fields;
  if (!rules || Object.keys(rules).length === 0) return resource.views[surface];
  const answers = await fieldVerdicts(rules, ctx);
  // Denied every rule: the view built for every caller.
  if (!answers.includes("1")) return resource.views[surface];
  const key = `${surface}:${answers}`;
  let views = byResource.get(resource);
  if (!views) {
    views = new Map();
    byResource.set(resource, views);
  }
  let view = views.get(key);
  if (!view) {
    view = buildView(surface, resource.description, resource.options, denialsOf(rules, answers));
    if (views.size >= MAX_VIEWS) views.delete(views.keys().next().value as string);
    views.set(key, view);
  }
  return view;
}
