/**
 * Output schemas: every tool answers `{data, ...}` like the REST API, so results wrap the
 * serialized document(s). A custom `mcpResponseHandler` may shape data freely, so its schema
 * is left open.
 */
import type { Resource } from "../core/resource.js";
import type { CrudMethod } from "../core/types.js";
import { outputSchema } from "../schema/jsonSchema.js";
import type { JsonSchema } from "../schema/types.js";

function documentSchema(resource: Resource): JsonSchema {
  const custom = resource.options.mcp?.mcpResponseHandler ?? resource.options.responseHandler;
  if (custom) return { description: "A document, shaped by the server's response handler." };
  return outputSchema(resource.description, { hidden: resource.views.tools.hidden });
}

export function toolOutputSchema(resource: Resource, method: CrudMethod): JsonSchema {
  if (method === "list") {
    return {
      type: "object",
      properties: {
        data: { type: "array", items: documentSchema(resource) },
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
