/**
 * Workspace-scoped resources (`modelRouter(Model, {workspace: "workspaceId"})`): every read,
 * list, write, completion and populate of the model is confined to the call's current workspace
 * (src/core/workspace.ts). A record of another workspace is answered exactly like one that does
 * not exist; the field is read-only to callers and set by the core on create.
 *
 * The scope is a filter the core conjoins (never merges) with everything a caller sends, so no
 * filter, `$or`/`$and` or sort reaches past it; a populate of a scoped model's documents from
 * any router is matched to the same workspace (populate.ts).
 */
import type { AnyModel, PlainObject, RequestContext } from "./types.js";

/** What the scope reads of a resource (not `Resource`: resource.ts imports this file). */
interface ScopedResource {
  model: AnyModel;
  options: { workspace?: string };
}

/** Models some router scopes, with the field holding their workspace. */
const scopedModels = new WeakMap<AnyModel, string>();

/** Called by defineResource for a scoped router: populates of the model are matched too. */
export function registerScopedModel(model: AnyModel, field: string): void {
  scopedModels.set(model, field);
}

/** The field holding `model`'s workspace when some router scopes it. */
export function scopedFieldOf(model: AnyModel): string | undefined {
  return scopedModels.get(model);
}

/**
 * The id of the call's workspace for a scoped resource (throws the caller's resolution error:
 * 401, 403, 404, or 400 listing their workspaces); `undefined` for an unscoped one.
 */
export async function workspaceIdFor(
  resource: ScopedResource,
  ctx: RequestContext,
): Promise<string | undefined> {
  const field = resource.options.workspace;
  if (!field) return undefined;
  if (!ctx.workspace) {
    throw new Error(
      `terreno-mcp: ${resource.model.modelName}'s router is scoped by workspace, but the app has no workspaces (new TerrenoApp({workspaces: true})).`,
    );
  }
  return (await ctx.workspace.current()).id;
}

/** The filter that confines `resource` to the call's workspace, or `undefined` when unscoped. */
export async function workspaceFilter(
  resource: ScopedResource,
  ctx: RequestContext,
): Promise<PlainObject | undefined> {
  const id = await workspaceIdFor(resource, ctx);
  const field = resource.options.workspace;
  return id === undefined || !field ? undefined : { [field]: id };
}
