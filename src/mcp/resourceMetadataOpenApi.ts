/**
 * The MCP endpoint's Protected Resource Metadata (RFC 9728) in `/openapi.json`
 * (TerrenoPlugin.openApi): public JSON an MCP client reads to find the authorization server.
 * Only the URLs the endpoint actually mounted are listed; `/mcp` itself is JSON-RPC, not REST.
 */
import type { OpenApiContribution } from "../plugin/types.js";

const TAG = "MCP";

export function resourceMetadataOpenApi(metadataPaths: readonly string[]): OpenApiContribution {
  if (metadataPaths.length === 0) return { paths: {} };
  const paths = Object.fromEntries(
    metadataPaths.map((path, index) => [
      path,
      {
        get: {
          tags: [TAG],
          // The first is the path form (RFC 9728 §3.1); the others serve the same document.
          operationId:
            index === 0
              ? "mcpProtectedResourceMetadata"
              : `mcpProtectedResourceMetadata${index + 1}`,
          summary: "Protected Resource Metadata of the MCP endpoint (RFC 9728)",
          security: [],
          responses: {
            "200": {
              description: "The resource, its authorization servers and scopes.",
              content: {
                "application/json": {
                  schema: { $ref: "#/components/schemas/ProtectedResourceMetadata" },
                },
              },
            },
          },
        },
      },
    ]),
  );
  return {
    tags: [{ name: TAG, description: "The MCP endpoint as an OAuth protected resource." }],
    schemas: {
      ProtectedResourceMetadata: {
        type: "object",
        properties: {
          resource: { type: "string", format: "uri" },
          authorization_servers: { type: "array", items: { type: "string", format: "uri" } },
          scopes_supported: { type: "array", items: { type: "string" } },
          bearer_methods_supported: { type: "array", items: { type: "string", enum: ["header"] } },
          resource_name: { type: "string" },
          resource_documentation: { type: "string", format: "uri" },
        },
        required: ["resource", "scopes_supported", "bearer_methods_supported"],
      },
    },
    paths,
  };
}
