/**
 * The OAuth server's public JSON endpoints in `/openapi.json` (TerrenoPlugin.openApi): its
 * metadata (RFC 8414, OpenID discovery), the JWKS, dynamic client registration (RFC 7591) and the
 * token endpoint. The browser pages (sign-in, consent, authorize) are HTML and left out.
 */
import type { OpenApiContribution, OpenApiJson } from "../app/types.js";

const TAG = "OAuth";

const json = (description: string, schema: OpenApiJson) => ({
  description,
  content: { "application/json": { schema } },
});

/** RFC 6749 §5.2: the one error shape of every OAuth endpoint. */
const OAUTH_ERROR = json("An OAuth error (RFC 6749 §5.2).", {
  $ref: "#/components/schemas/OAuthError",
});

const publicOp = (operationId: string, summary: string, extra: OpenApiJson) => ({
  tags: [TAG],
  operationId,
  summary,
  security: [],
  ...extra,
});

export interface OAuthOpenApiSettings {
  issuerPath: string;
  basePath: string;
  openid: boolean;
  registration: boolean;
}

export function oauthOpenApi(settings: OAuthOpenApiSettings): OpenApiContribution {
  const { issuerPath, basePath, openid, registration } = settings;
  const metadata = { type: "object", additionalProperties: true };
  const paths: Record<string, OpenApiJson> = {
    [`/.well-known/oauth-authorization-server${issuerPath}`]: {
      get: publicOp(
        "oauthAuthorizationServerMetadata",
        "Authorization server metadata (RFC 8414)",
        {
          responses: {
            "200": json("The issuer's endpoints, scopes and supported grants.", metadata),
          },
        },
      ),
    },
    [`${basePath}/jwks`]: {
      get: publicOp("oauthJwks", "The keys that sign the access tokens (JWKS)", {
        responses: {
          "200": json("A JSON Web Key Set (RFC 7517).", {
            type: "object",
            properties: { keys: { type: "array", items: { type: "object" } } },
            required: ["keys"],
          }),
        },
      }),
    },
    [`${basePath}/oauth2/token`]: {
      post: publicOp("oauthToken", "Exchange a code or a refresh token for tokens", {
        requestBody: {
          required: true,
          content: {
            "application/x-www-form-urlencoded": {
              schema: {
                type: "object",
                properties: {
                  grant_type: { type: "string", enum: ["authorization_code", "refresh_token"] },
                  code: { type: "string" },
                  redirect_uri: { type: "string" },
                  code_verifier: { type: "string", description: "PKCE (RFC 7636)." },
                  refresh_token: { type: "string" },
                  client_id: { type: "string" },
                  resource: { type: "string", description: "RFC 8707: the MCP endpoint's URL." },
                },
                required: ["grant_type"],
              },
            },
          },
        },
        responses: {
          "200": json("The tokens (RFC 6749 §5.1).", {
            type: "object",
            properties: {
              access_token: { type: "string" },
              token_type: { type: "string" },
              expires_in: { type: "integer" },
              refresh_token: { type: "string" },
              scope: { type: "string" },
              id_token: { type: "string" },
            },
            required: ["access_token", "token_type"],
          }),
          "400": OAUTH_ERROR,
          "401": OAUTH_ERROR,
        },
      }),
    },
  };
  if (openid) {
    paths[`${issuerPath}/.well-known/openid-configuration`] = {
      get: publicOp("oauthOpenIdConfiguration", "OpenID Connect discovery", {
        responses: { "200": json("The OpenID provider's metadata.", metadata) },
      }),
    };
  }
  if (registration) {
    paths[`${basePath}/oauth2/register`] = {
      post: publicOp("oauthRegisterClient", "Register a client (RFC 7591)", {
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: {
                  redirect_uris: { type: "array", items: { type: "string" } },
                  client_name: { type: "string" },
                  token_endpoint_auth_method: { type: "string" },
                  grant_types: { type: "array", items: { type: "string" } },
                  response_types: { type: "array", items: { type: "string" } },
                  scope: { type: "string" },
                },
                required: ["redirect_uris"],
              },
            },
          },
        },
        responses: {
          "201": json("The registered client, with its `client_id`.", {
            type: "object",
            properties: { client_id: { type: "string" } },
            required: ["client_id"],
          }),
          "400": OAUTH_ERROR,
        },
      }),
    };
  }
  return {
    tags: [{ name: TAG, description: "The built-in OAuth 2.1 authorization server." }],
    schemas: {
      OAuthError: {
        type: "object",
        properties: { error: { type: "string" }, error_description: { type: "string" } },
        required: ["error"],
      },
    },
    paths,
  };
}
