/** The change records' routes (changeRoutes.ts) in `/openapi.json`. Hidden values never appear. */
import type { OpenApiContribution, OpenApiHelpers, OpenApiJson } from "../plugin/types.js";

const TAG = "Changes";

const query = (name: string, description: string, schema: OpenApiJson): OpenApiJson => ({
  name,
  in: "query",
  required: false,
  description,
  schema,
});

export function changesOpenApi(helpers: OpenApiHelpers, path: string): OpenApiContribution {
  const security = helpers.security.length > 0 ? { security: [...helpers.security] } : {};
  const limited = helpers.rateLimited ? [429] : [];
  const op = (operation: OpenApiJson, statuses: number[]): OpenApiJson => ({
    tags: [TAG],
    ...security,
    ...operation,
    responses: { ...(operation.responses as OpenApiJson), ...helpers.errors(statuses) },
  });
  const text = { type: "string" };
  return {
    tags: [
      {
        name: TAG,
        description:
          "What each create, update, delete and action changed, and undo. Admins see every change, others their own. A hidden field's values are never served.",
      },
    ],
    schemas: {
      Change: {
        type: "object",
        properties: {
          id: text,
          timestamp: { type: "string", format: "date-time" },
          userId: text,
          tokenId: { type: "string", description: "The personal access token used, if any." },
          authMethod: text,
          workspaceId: text,
          surface: { type: "string", enum: ["rest", "mcp", "ai", "internal"] },
          operation: text,
          action: text,
          model: text,
          record: { type: "string", description: "The record's id." },
          version: { type: "integer", description: "The record's version after the change." },
          changes: {
            type: "array",
            items: {
              type: "object",
              properties: {
                path: text,
                before: { description: "The value before (absent when it had none)." },
                after: { description: "The value after (absent when it has none)." },
                hidden: {
                  type: "boolean",
                  description: "A hidden field: it changed; its values are not served.",
                },
              },
              required: ["path"],
            },
          },
        },
        required: ["id", "timestamp", "surface", "operation", "action", "model", "record"],
      },
    },
    paths: {
      [path]: {
        get: op(
          {
            operationId: "listChanges",
            summary: "Change records, newest first (admins: all; others: their own)",
            parameters: [
              query("record", "Only the changes of this record (its id).", text),
              query("model", "Only this model's changes.", text),
              query("client", "Only changes made with this personal access token (its id).", text),
              query("surface", "Only changes through this surface.", text),
              query("since", "Only changes at or after this time.", {
                type: "string",
                format: "date-time",
              }),
              query("until", "Only changes at or before this time.", {
                type: "string",
                format: "date-time",
              }),
              query("limit", "At most this many (default 50).", {
                type: "integer",
                minimum: 0,
                maximum: 500,
              }),
              query("offset", "Skip this many.", { type: "integer", minimum: 0 }),
            ],
            responses: {
              "200": {
                description: "The changes.",
                content: {
                  "application/json": {
                    schema: {
                      type: "object",
                      properties: {
                        data: {
                          type: "array",
                          items: { $ref: "#/components/schemas/Change" },
                        },
                        limit: { type: "integer" },
                        offset: { type: "integer" },
                      },
                      required: ["data"],
                    },
                  },
                },
              },
            },
          },
          [400, 401],
        ),
      },
      [`${path}/{id}/undo`]: {
        post: op(
          {
            operationId: "undoChange",
            summary:
              "Undo one of your changes, if the record is still at the version it left (else 409 with both states)",
            parameters: [
              {
                name: "id",
                in: "path",
                required: true,
                description: "The change's id.",
                schema: text,
              },
            ],
            responses: {
              "200": {
                description: "What the undo's write answered (the record, or `{id, deleted}`).",
                content: {
                  "application/json": {
                    schema: { type: "object", properties: { data: {} }, required: ["data"] },
                  },
                },
              },
            },
          },
          [400, 401, 403, 404, 409, ...limited],
        ),
      },
    },
  };
}
