/**
 * The list tool's input schema: a `filter` object over the visible query fields (each a value
 * or an allowlisted operator object), `sort` restricted by pattern to visible fields, `page`,
 * `limit` and `populate`.
 */
import type { Resource } from "../core/resource.js";
import { DEFAULT_LIMIT, maxLimitFor } from "../core/resource.js";
import { filterValueSchema } from "../schema/jsonSchema.js";
import { allowedOperators } from "../schema/operators.js";
import type { JsonSchema } from "../schema/types.js";

const SORTABLE = new Set(["string", "number", "boolean", "date", "objectId"]);

function escapeRegex(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export function visibleQueryFields(resource: Resource): string[] {
  const { hidden } = resource.views.tools;
  return (resource.options.queryFields ?? []).filter(
    (path) => resource.description.byPath.has(path) && !hidden.isHidden(path),
  );
}

export function sortableFields(resource: Resource): string[] {
  const { hidden } = resource.views.tools;
  return [...resource.description.byPath.entries()]
    .filter(
      ([path, field]) =>
        SORTABLE.has(field.kind) &&
        !hidden.isHidden(path) &&
        path !== "__v" &&
        !path.includes(".$"),
    )
    .map(([path]) => (path === "_id" ? "id" : path));
}

export function populatablePaths(resource: Resource): string[] {
  const { hidden } = resource.views.tools;
  return (resource.options.populatePaths ?? [])
    .map((p) => p.path)
    .filter((p) => !hidden.isHidden(p));
}

export function populateSchema(resource: Resource): JsonSchema | undefined {
  const paths = populatablePaths(resource);
  if (paths.length === 0) return undefined;
  return {
    type: "array",
    items: { type: "string", enum: paths },
    description: `Reference paths to expand into documents. Default: all of ${paths.join(", ")}. Pass [] for ids only.`,
  };
}

export function listInputSchema(resource: Resource): JsonSchema {
  const filterProperties: Record<string, JsonSchema> = {};
  for (const path of visibleQueryFields(resource)) {
    const field = resource.description.byPath.get(path);
    if (!field) continue;
    const schema = filterValueSchema(field);
    filterProperties[path] = {
      ...schema,
      description:
        `${schema.description ?? ""} Operators: ${allowedOperators(field).join(", ")}.`.trim(),
    };
  }
  const sortable = sortableFields(resource);
  const fieldAlternatives = sortable.map(escapeRegex).join("|");
  const maxLimit = maxLimitFor(resource, "tools");
  const defaultLimit = Math.min(resource.options.defaultLimit ?? DEFAULT_LIMIT, maxLimit);
  const properties: Record<string, JsonSchema> = {};
  if (Object.keys(filterProperties).length > 0) {
    properties.filter = {
      type: "object",
      properties: filterProperties,
      additionalProperties: false,
      description: `Match documents by field. Filterable fields: ${Object.keys(filterProperties).join(", ")}.`,
    };
  }
  properties.sort = {
    type: "string",
    pattern: `^-?(${fieldAlternatives})(,-?(${fieldAlternatives})){0,4}$`,
    maxLength: 500,
    description: `Comma-separated fields; prefix "-" for descending, e.g. "-${sortable.includes("createdAt") ? "createdAt" : sortable[0]}". Sortable: ${sortable.join(", ")}.`,
  };
  properties.page = { type: "integer", minimum: 1, description: "Page number, starting at 1." };
  properties.limit = {
    type: "integer",
    minimum: 1,
    description: `Documents per page. Default ${defaultLimit}; at most ${maxLimit} (larger values are clamped).`,
  };
  const populate = populateSchema(resource);
  if (populate) properties.populate = populate;
  return { type: "object", properties, additionalProperties: false };
}
