/** list: permission → filter (caller's, defaults, queryFilter, soft delete) → page → populate → respond. */

import { authorize } from "../authorize.js";
import type { CrudOptions } from "../crudOptions.js";
import { validationFailed } from "../errors.js";
import { buildFilter, conjoinFilters, FILTER_COMBINATORS } from "../filter.js";
import { assertNoForbiddenKeys } from "../inputSafety.js";
import { resolvePopulate, scopePopulate } from "../populate.js";
import type { Resource } from "../resource.js";
import { respond } from "../respond.js";
import { parseSort, type SortSpec } from "../sort.js";
import type { PlainObject, RequestContext } from "../types.js";
import type { SurfaceView } from "../viewTypes.js";
import { workspaceFilter } from "../workspaceScope.js";

export interface ListInput {
  filter?: PlainObject;
  sort?: unknown;
  page?: unknown;
  limit?: unknown;
  populate?: unknown;
  /**
   * A filter set by the framework itself, never from a caller's input (MCP completions match
   * ids and titles with it): trusted like `defaultQueryParams`, conjoined with the caller's
   * filter and under `queryFilter`, so it can only narrow the caller's list.
   */
  match?: PlainObject;
}

export interface ListResult {
  data: unknown[];
  page: number;
  limit: number;
  total: number;
  more: boolean;
}

/** Bounds a catastrophic $regex or a slow scan; the error maps to an actionable 400. */
const LIST_MAX_TIME_MS = 5000;

function positiveInteger(value: unknown, name: string, fallback: number): number {
  if (value === undefined || value === null || value === "") return fallback;
  const number = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== "number" || !Number.isSafeInteger(number) || number < 1) {
    throw validationFailed(`Invalid ${name}.`, { [name]: "must be a positive whole number" });
  }
  return number;
}

/**
 * A surface whose callers send typed JSON (the tools) gets exactly the list input its list
 * tool advertises: what that schema refuses is refused here too, whoever calls the core.
 */
function checkTypedInput(view: SurfaceView, input: ListInput): void {
  if (!view.listInput) return;
  const given = Object.fromEntries(
    Object.entries(input).filter(([key, v]) => v !== undefined && key !== "match"),
  );
  const checked = view.listInput.validate(given);
  if (!checked.ok) throw validationFailed(checked.message, checked.fields);
}

/** The router's own default sort is configuration, trusted like defaultQueryParams. */
function defaultSort(sort: CrudOptions["sort"]): SortSpec {
  if (!sort) return {};
  // Partial<Record<…>> in the options' type; the router's own sort has no undefined values.
  if (typeof sort !== "string") return { ...sort } as SortSpec;
  const spec: SortSpec = {};
  for (const part of sort
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const desc = part.startsWith("-");
    const path = part.replace(/^[-+]/, "");
    spec[path === "id" ? "_id" : path] = desc ? -1 : 1;
  }
  return spec;
}

/** authorize, then the input's key and type checks, then `runList`. */
export async function list(
  resource: Resource,
  ctx: RequestContext,
  input: ListInput = {},
): Promise<ListResult> {
  const view = await authorize(resource, ctx, "list");
  // The filter is checked by buildFilter, which names paths as this surface's caller sent them.
  assertNoForbiddenKeys({ ...input, filter: undefined, match: undefined }, "request");
  checkTypedInput(view, input);
  return runList(resource, view, ctx, input);
}

/**
 * The list itself, for a caller already authorized on `view` whose input was already checked
 * (by `list`, or by the tool-call runner against the list tool's schema): no second verdict,
 * no second validation.
 */
export async function runList(
  resource: Resource,
  view: SurfaceView,
  ctx: RequestContext,
  input: ListInput,
): Promise<ListResult> {
  const { options, description, model } = resource;
  // First: a caller with no workspace to act in gets that error before any input is judged.
  const scope = await workspaceFilter(resource, ctx);

  const limit = Math.min(positiveInteger(input.limit, "limit", view.defaultLimit), view.maxLimit);
  const page = positiveInteger(input.page, "page", 1);
  const sort = parseSort(input.sort, view) ?? defaultSort(options.sort);
  const populate = await scopePopulate(
    resolvePopulate(view, input.populate, model, ctx),
    model,
    ctx,
  );

  // The tools send typed JSON in a `filter` argument; REST sends query parameters as text.
  const typed = view.listInput ? { argument: "filter", typed: true } : {};
  const callerFilter = buildFilter(input.filter ?? {}, { description, view, ...typed });
  // Defaults are trusted configuration, so they skip the caller allowlist but not coercion rules.
  // A caller's field replaces its default; a caller's $or/$and adds to the defaults' own.
  const defaults = options.defaultQueryParams ?? {};
  let filter: PlainObject = { ...defaults, ...callerFilter };
  for (const key of FILTER_COMBINATORS) {
    if (key in defaults && key in callerFilter) {
      filter = conjoinFilters(filter, { [key]: defaults[key] });
    }
  }
  if (input.match) filter = conjoinFilters(filter, input.match);
  if (options.queryFilter) {
    const narrowed = await options.queryFilter(ctx.user, filter);
    if (narrowed === null) {
      return { data: [], page, limit, total: 0, more: false };
    }
    // Conjoined, never merged: no caller key (a field, $or, $and) can replace or widen the scope.
    filter = conjoinFilters(filter, narrowed);
  }
  // The workspace last, conjoined too: nothing before it (caller, defaults, queryFilter) widens it.
  if (scope) filter = conjoinFilters(filter, scope);
  if (description.softDelete) {
    filter.deleted = { $ne: true };
  }

  let query = model
    .find(filter)
    .sort({ ...sort, _id: sort._id ?? 1 })
    .skip((page - 1) * limit)
    .limit(limit)
    .maxTimeMS(LIST_MAX_TIME_MS);
  for (const option of populate) {
    query = query.populate(option);
  }
  const [docs, total] = await Promise.all([
    query.exec(),
    model.countDocuments(filter).maxTimeMS(LIST_MAX_TIME_MS).exec(),
  ]);
  const data = (await respond(resource, view, ctx, "list", docs)) as unknown[];
  return { data, page, limit, total, more: (page - 1) * limit + docs.length < total };
}
