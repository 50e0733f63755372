/** list: permission → filter (caller's, defaults, queryFilter, soft delete) → page → populate → respond. */
import { validationFailed } from "../errors.js";
import { buildFilter } from "../filter.js";
import { assertNoForbiddenKeys } from "../inputSafety.js";
import { checkPermissions } from "../permissions.js";
import { resolvePopulate } from "../populate.js";
import { DEFAULT_LIMIT, maxLimitFor, type Resource, surfaceOf } from "../resource.js";
import { respond } from "../respond.js";
import { parseSort } from "../sort.js";
import type { PlainObject, RequestContext } from "../types.js";

export interface ListInput {
  filter?: PlainObject;
  sort?: unknown;
  page?: unknown;
  limit?: unknown;
  populate?: unknown;
}

export interface ListResult {
  data: unknown[];
  page: number;
  limit: number;
  total: number;
  more: boolean;
}

/** Bounds a catastrophic $regex or a slow scan; the error maps to an actionable 400. */
export const LIST_MAX_TIME_MS = 5000;

function positiveInteger(value: unknown, name: string, fallback: number): number {
  if (value === undefined || value === null || value === "") return fallback;
  const number = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== "number" || !Number.isSafeInteger(number) || number < 1) {
    throw validationFailed(`Invalid ${name}.`, { [name]: "must be a positive whole number" });
  }
  return number;
}

export async function list(
  resource: Resource,
  ctx: RequestContext,
  input: ListInput = {},
): Promise<ListResult> {
  const { options, description, model } = resource;
  await checkPermissions(options.permissions, "list", ctx.user);
  assertNoForbiddenKeys(input, "request");

  const surface = surfaceOf(ctx.transport);
  const { hidden } = resource.views[surface];
  const maxLimit = maxLimitFor(resource, surface);
  const limit = Math.min(
    positiveInteger(input.limit, "limit", options.defaultLimit ?? DEFAULT_LIMIT),
    maxLimit,
  );
  const page = positiveInteger(input.page, "page", 1);
  const sort = parseSort(input.sort ?? options.sort, description, hidden) ?? {};
  const populate = resolvePopulate(options.populatePaths ?? [], input.populate, hidden, model);

  const callerFilter = buildFilter(input.filter ?? {}, {
    description,
    hidden,
    queryFields: options.queryFields ?? [],
  });
  // Defaults are trusted configuration, so they skip the caller allowlist but not coercion rules.
  const filter: PlainObject = { ...(options.defaultQueryParams ?? {}), ...callerFilter };
  if (options.queryFilter) {
    const scope = await options.queryFilter(ctx.user, filter);
    if (scope === null) {
      return { data: [], page, limit, total: 0, more: false };
    }
    Object.assign(filter, scope);
  }
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
  const data = (await respond(resource, ctx, "list", docs)) as unknown[];
  return { data, page, limit, total, more: (page - 1) * limit + docs.length < total };
}
