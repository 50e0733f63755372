/**
 * Connected apps in `/openapi.json`: `GET <auth path>/connections` and
 * `DELETE <auth path>/connections/{clientId}` (src/oauth/connectionRoutes.ts).
 */
import type { OpenApiContribution, OpenApiHelpers } from "../plugin/types.js";

const TAG = "Connected apps";

export function connectionsOpenApi(path: string, helpers: OpenApiHelpers): OpenApiContribution {
  const security = helpers.security.length > 0 ? { security: [...helpers.security] } : {};
  return {
    tags: [
      { name: TAG, description: "The OAuth clients a user has granted, and their revocation." },
    ],
    schemas: {
      ConnectedApp: {
        type: "object",
        properties: {
          clientId: { type: "string" },
          name: { type: "string", description: "The name the client registered (a claim)." },
          trust: {
            type: "string",
            enum: ["verified", "unverified"],
            description: "Verified: a Client ID Metadata Document's host vouches for it.",
          },
          redirectHost: { type: ["string", "null"], description: "Where its codes go." },
          scopes: { type: "array", items: { type: "string" } },
          grantedAt: { type: ["string", "null"], format: "date-time" },
          lastUsedAt: { type: ["string", "null"], format: "date-time" },
        },
        required: [
          "clientId",
          "name",
          "trust",
          "redirectHost",
          "scopes",
          "grantedAt",
          "lastUsedAt",
        ],
      },
    },
    paths: {
      [path]: {
        get: {
          tags: [TAG],
          operationId: "listConnections",
          summary: "The OAuth clients the signed-in user has granted",
          ...security,
          responses: {
            "200": {
              description: "The connected apps, most recently granted first.",
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    properties: {
                      data: { type: "array", items: { $ref: "#/components/schemas/ConnectedApp" } },
                    },
                    required: ["data"],
                  },
                },
              },
            },
            ...helpers.errors([401, 403]),
          },
        },
      },
      [`${path}/{clientId}`]: {
        delete: {
          tags: [TAG],
          operationId: "revokeConnection",
          summary: "Revoke a connected app: its tokens and consent, at once",
          ...security,
          parameters: [
            { name: "clientId", in: "path", required: true, schema: { type: "string" } },
          ],
          responses: {
            "204": { description: "Revoked: its tokens are refused and it must ask again." },
            ...helpers.errors([401, 403, 404]),
          },
        },
      },
    },
  };
}
