/**
 * Personal access tokens (`<auth path>/tokens`): create, list and revoke, with the
 * PersonalToken and NewPersonalToken schemas. Only the create answer carries the token value.
 */

import { rateLimitStatuses } from "./errorResponses.js";
import { dataEnvelope, ID_PARAMETER, json, jsonBody, ref } from "./fragments.js";
import { operation } from "./operation.js";
import type {
  DocumentedAuth,
  DocumentedPersonalTokens,
  OpenApiObject,
  OpenApiSource,
} from "./types.js";

export function personalTokenOperations(
  auth: DocumentedAuth,
  options: DocumentedPersonalTokens,
  source: OpenApiSource,
  paths: OpenApiObject,
  schemas: OpenApiObject,
): void {
  const tags = ["Personal access tokens"];
  const info = {
    id: { type: "string" },
    name: { type: "string" },
    scope: { type: "string", enum: ["read", "write"] },
    createdAt: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] },
    expiresAt: { type: "string", format: "date-time" },
    lastUsedAt: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] },
    workspaceId: {
      type: "string",
      description: "The workspace the token is bound to (absent: unbound): it acts there only.",
    },
  };
  schemas.PersonalToken = {
    type: "object",
    properties: info,
    required: ["id", "name", "scope", "expiresAt"],
  };
  schemas.NewPersonalToken = {
    type: "object",
    properties: {
      id: info.id,
      name: info.name,
      scope: info.scope,
      expiresAt: info.expiresAt,
      workspaceId: info.workspaceId,
      token: { type: "string", description: "The token (`tmcp_…`), shown this once." },
    },
    required: ["id", "name", "scope", "expiresAt", "token"],
  };
  paths[`${auth.path}/tokens`] = {
    post: operation({
      tags,
      operationId: "createPersonalToken",
      summary: "Create a personal access token (from a signed-in session only)",
      requestBody: jsonBody({
        type: "object",
        properties: {
          name: { type: "string", minLength: 1, maxLength: 100 },
          scope: info.scope,
          expiresInDays: {
            type: "integer",
            minimum: 1,
            maximum: options.maxExpiresInDays,
            default: options.defaultExpiresInDays,
          },
          workspaceId: {
            type: "string",
            description:
              "Binds the token to one of the caller's workspaces (404 otherwise): it then acts there only, and an X-Workspace-Id header naming another is 403.",
          },
        },
        required: ["name", "scope"],
        additionalProperties: false,
      }),
      responses: { "201": json(dataEnvelope(ref("NewPersonalToken")), "The new token.") },
      errors: [400, 401, 403, 404, 409, ...rateLimitStatuses(source)],
    }),
    get: operation({
      tags,
      operationId: "listPersonalTokens",
      summary: "The caller's unexpired tokens, without their values",
      responses: {
        "200": json(
          dataEnvelope({ type: "array", items: ref("PersonalToken") }),
          "The caller's tokens.",
        ),
      },
      errors: [401],
    }),
  };
  paths[`${auth.path}/tokens/{id}`] = {
    delete: operation({
      tags,
      operationId: "deletePersonalToken",
      summary: "Revoke one of the caller's tokens",
      parameters: [{ ...ID_PARAMETER, description: "The token's id." }],
      responses: { "204": { description: "Revoked." } },
      errors: [401, 403, 404],
    }),
  };
}
