/**
 * Output schemas: every tool answers `{data, ...}` like the REST API, so results wrap the
 * serialized document(s). A custom `mcpResponseHandler` may shape data freely, so its schema
 * names every JSON type rather than being a bare `{}`.
 */
import type { Resource } from "../core/resource.js";
import type { CrudMethod } from "../core/types.js";
import { VERSION_FIELD, versionKey } from "../core/versions.js";
import { outputSchema } from "../schema/jsonSchema.js";
import type { JsonSchema } from "../schema/types.js";

/**
 * What a custom response handler may return: any JSON value, each type named (clients check
 * results against this, and a handler may shape a list into anything).
 */
function shapedByHandler(what: string): JsonSchema {
  return {
    anyOf: [
      { type: "object" },
      { type: "array" },
      { type: "string" },
      { type: "number" },
      { type: "boolean" },
      { type: "null" },
    ],
    description: `${what}, shaped by the server's response handler.`,
  };
}

function hasCustomHandler(resource: Resource): boolean {
  return Boolean(resource.options.mcp?.mcpResponseHandler ?? resource.options.responseHandler);
}

function documentSchema(resource: Resource): JsonSchema {
  if (hasCustomHandler(resource)) return shapedByHandler("A document");
  const schema = outputSchema(resource.description, { hidden: resource.views.tools.hidden });
  if (versionKey(resource) === undefined) return schema;
  // Every write changes it; an update or delete sending it back is conditional on it.
  return { ...schema, properties: { ...schema.properties, [VERSION_FIELD]: { type: "integer" } } };
}

export function toolOutputSchema(resource: Resource, method: CrudMethod): JsonSchema {
  if (method === "list") {
    return {
      type: "object",
      properties: {
        data: hasCustomHandler(resource)
          ? shapedByHandler("The page's documents")
          : { type: "array", items: documentSchema(resource) },
        page: { type: "integer" },
        limit: { type: "integer" },
        total: { type: "integer" },
        more: { type: "boolean", description: "Whether later pages hold more documents." },
      },
      required: ["data", "page", "limit", "total", "more"],
      additionalProperties: false,
    };
  }
  if (method === "delete") {
    return {
      type: "object",
      properties: {
        data: {
          type: "object",
          properties: { id: { type: "string" }, deleted: { type: "boolean" } },
          required: ["id", "deleted"],
          additionalProperties: false,
        },
      },
      required: ["data"],
      additionalProperties: false,
    };
  }
  return {
    type: "object",
    properties: { data: documentSchema(resource) },
    required: ["data"],
    additionalProperties: false,
  };
}
