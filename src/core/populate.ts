/**
 * Resolves which declared `populatePaths` a call populates, and builds Mongoose populate
 * options whose field selects can never pull a field the referenced model's view hides. The
 * options are built once per view and path (they depend on the app's routers, not the call).
 */
import type { Connection, Model } from "mongoose";
import type { HiddenFields } from "../schema/hiddenFields.js";
import { validationFailed } from "./errors.js";
import { hiddenFieldsOf } from "./present.js";
import type { AnyModel, PopulatePath, RequestContext } from "./types.js";
import type { SurfaceView } from "./viewTypes.js";
import { scopedFieldOf } from "./workspaceScope.js";

export interface PopulateOption {
  path: string;
  select?: string;
  /** Set for a workspace-scoped referenced model: only the call's workspace's documents. */
  match?: Record<string, unknown>;
}

/** Matches nothing: a scoped reference when the call has no workspace to act in. */
const NOTHING = { _id: { $in: [] } };

/**
 * The options with a `match` on each path whose referenced model some router scopes by
 * workspace (workspaceScope.ts), so a populate never shows another workspace's document (it is
 * left null, as a dangling reference is). Where the call has no current workspace (an unscoped
 * router's caller who has not chosen one), scoped references populate as nothing.
 */
export async function scopePopulate(
  options: PopulateOption[],
  model: Model<unknown>,
  ctx: Pick<RequestContext, "workspace">,
): Promise<PopulateOption[]> {
  if (options.length === 0) return options;
  const scoped: PopulateOption[] = [];
  let current: string | null | undefined;
  for (const option of options) {
    const refModel = refModelOf(model, option.path);
    const field = refModel ? scopedFieldOf(refModel) : undefined;
    if (!field) {
      scoped.push(option);
      continue;
    }
    if (current === undefined) current = (await ctx.workspace?.peek())?.id ?? null;
    scoped.push({ ...option, match: current === null ? NOTHING : { [field]: current } });
  }
  return scoped;
}

function refModelName(model: Model<unknown>, path: string): string | undefined {
  const schemaType = model.schema.path(path) as unknown as
    | {
        options?: { ref?: unknown; type?: unknown };
        embeddedSchemaType?: { options?: { ref?: unknown } };
        caster?: { options?: { ref?: unknown } };
      }
    | undefined;
  const ref =
    schemaType?.options?.ref ??
    schemaType?.embeddedSchemaType?.options?.ref ??
    schemaType?.caster?.options?.ref;
  if (typeof ref === "string") return ref;
  if (typeof ref === "function" && "modelName" in ref) return String(ref.modelName);
  return undefined;
}

/** The model a populated path refers to, as registered on the model's connection. */
function refModelOf(model: Model<unknown>, path: string): AnyModel | undefined {
  const modelName = refModelName(model, path);
  if (!modelName) return undefined;
  const connection: Connection = model.db;
  return connection.models[modelName] ?? connection.base.models[modelName];
}

/**
 * A populate with no field list selects everything but what the referenced model's routers
 * hide (its schema's `select: false` is left out by Mongoose already); `undefined` when none.
 * Bare names are left out at the referenced document's top level.
 */
function exclusionsOf(hidden: readonly HiddenFields[]): string | undefined {
  const names = new Set<string>();
  for (const one of hidden) {
    for (const name of one.bareNames) names.add(name);
    for (const path of one.paths) names.add(path);
  }
  names.delete("_id");
  // Mongoose refuses a path excluded beside its own parent ("path collision").
  const kept = [...names].filter(
    (name) => ![...names].some((other) => name.startsWith(`${other}.`)),
  );
  return kept.length > 0 ? kept.map((name) => `-${name}`).join(" ") : undefined;
}

/** `requested` undefined means every populatable path of the view; any other path is a 400. */
export function resolvePopulate(
  view: SurfaceView,
  requested: unknown,
  model: Model<unknown>,
  ctx: Pick<RequestContext, "services">,
): PopulateOption[] {
  const visible = view.populatable;
  let chosen = visible;
  if (requested !== undefined) {
    const names = typeof requested === "string" ? requested.split(",").filter(Boolean) : requested;
    if (!Array.isArray(names) || names.some((n) => typeof n !== "string")) {
      throw validationFailed("Invalid populate.", { populate: "must be a list of paths" });
    }
    const unknown = names.filter((name) => !visible.some((p) => p.path === name));
    if (unknown.length > 0) {
      const allowed = visible.map((p) => p.path).join(", ") || "none";
      throw validationFailed(
        `Cannot populate ${unknown.join(", ")}. Populatable paths: ${allowed}.`,
        {
          populate: `${unknown.join(", ")} is not a populatable path`,
        },
      );
    }
    chosen = visible.filter((p) => names.includes(p.path));
  }
  return chosen.map((p) => ({ ...populateOption(view, p, model, ctx) }));
}

interface CachedOption {
  refModel: AnyModel | undefined;
  /** What `ctx.hiddenOf` answered for the referenced model when the option was built. */
  routers: readonly HiddenFields[] | undefined;
  option: PopulateOption;
}

/** Built once per view and path: the inputs are the app's configuration, not the call's. */
const builtOptions = new WeakMap<SurfaceView, Map<string, CachedOption>>();

/**
 * The populate option for one path, rebuilt only when what it depends on changed: the
 * referenced model, or the app's routers that hide its fields (`hiddenOf` answers the same
 * list until a router is registered). Callers get a copy, so Mongoose never edits the cache.
 */
function populateOption(
  view: SurfaceView,
  p: PopulatePath,
  model: Model<unknown>,
  ctx: Pick<RequestContext, "services">,
): PopulateOption {
  const refModel = refModelOf(model, p.path);
  const routers = refModel ? ctx.services.hiddenOf?.(refModel, view.surface) : undefined;
  let byPath = builtOptions.get(view);
  if (!byPath) {
    byPath = new Map();
    builtOptions.set(view, byPath);
  }
  const cached = byPath.get(p.path);
  if (cached && cached.refModel === refModel && cached.routers === routers) return cached.option;
  const inRef = refModel ? hiddenFieldsOf(refModel, view.surface, ctx) : [];
  const option = buildOption(view, p, inRef);
  byPath.set(p.path, { refModel, routers, option });
  return option;
}

function buildOption(
  view: SurfaceView,
  p: PopulatePath,
  inRef: readonly HiddenFields[],
): PopulateOption {
  if (!p.fields) {
    const select = exclusionsOf(inRef);
    return select ? { path: p.path, select } : { path: p.path };
  }
  const fields = p.fields.filter(
    (f) =>
      !view.hidden.isHiddenName(f) &&
      !inRef.some((one) => one.isHidden(f)) &&
      !f.startsWith("+") &&
      !f.startsWith("-"),
  );
  return { path: p.path, select: ["_id", ...fields].join(" ") };
}
