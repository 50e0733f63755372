/**
 * The list tool's input schema, read from the tools view the core enforces: a `filter` object
 * over the filterable fields (each a value or an allowlisted operator object), `sort`
 * restricted by pattern to the sortable paths, `page`, `limit` and `populate`.
 */
import type { Resource } from "../core/resource.js";
import { filterValueSchema } from "../schema/jsonSchema.js";
import { allowedOperators } from "../schema/operators.js";
import type { JsonSchema } from "../schema/types.js";

function escapeRegex(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export function populateSchema(resource: Resource): JsonSchema | undefined {
  const paths = resource.views.tools.populatable.map((p) => p.path);
  if (paths.length === 0) return undefined;
  return {
    type: "array",
    items: { type: "string", enum: paths },
    description: `Reference paths to expand into documents. Default: all of ${paths.join(", ")}. Pass [] for ids only.`,
  };
}

export function listInputSchema(resource: Resource): JsonSchema {
  const filterProperties: Record<string, JsonSchema> = {};
  const view = resource.views.tools;
  for (const path of view.filterable) {
    const field = resource.description.byPath.get(path);
    if (!field) continue;
    const schema = filterValueSchema(field);
    filterProperties[path] = {
      ...schema,
      description:
        `${schema.description ?? ""} Operators: ${allowedOperators(field).join(", ")}.`.trim(),
    };
  }
  const { sortable, maxLimit, defaultLimit } = view;
  const fieldAlternatives = sortable.map(escapeRegex).join("|");
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
