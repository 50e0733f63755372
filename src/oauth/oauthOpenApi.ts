/**
 * The OAuth server's public JSON endpoints in `/openapi.json` (TerrenoPlugin.openApi): its
 * metadata (RFC 8414, OpenID discovery), the JWKS, dynamic client registration (RFC 7591), the
 * token endpoint, revocation (RFC 7009), introspection (RFC 7662) and, with `openid`, UserInfo.
 * The browser pages (sign-in, consent, authorize) are HTML and left out.
 */
import type { OpenApiContribution, OpenApiJson } from "../plugin/types.js";
import { clientMetadataFieldSchema } from "./clientMetadataLimits.js";

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

/**
 * Revocation and introspection need the client's credentials: HTTP Basic (client_secret_basic),
 * or in the form body (client_secret_post, private_key_jwt), which OpenAPI's `{}` stands for.
 */
const CLIENT_SCHEME = "oauthClientBasic";
const clientAuthenticated = [{ [CLIENT_SCHEME]: [] }, {}];
const ACCESS_TOKEN_SCHEME = "oauthAccessToken";

/** The form fields a client authenticates with when it does not use HTTP Basic. */
const clientCredentialFields = {
  client_id: { type: "string" },
  client_secret: { type: "string", description: "client_secret_post." },
  client_assertion: { type: "string", description: "private_key_jwt (RFC 7523)." },
  client_assertion_type: { type: "string" },
};

/** RFC 7009 §2.1 and RFC 7662 §2.1: the same form, naming one token. */
const tokenForm = (description: string) => ({
  required: true,
  content: {
    "application/x-www-form-urlencoded": {
      schema: {
        type: "object",
        properties: {
          token: { type: "string", description },
          token_type_hint: { type: "string", enum: ["access_token", "refresh_token"] },
          ...clientCredentialFields,
        },
        required: ["token"],
      },
    },
  },
});

/** Every route the OAuth library reads its body for takes at most 64 KB (rawBodyLimit.ts). */
const TOO_LARGE = json("The body is larger than 64 KB.", {
  $ref: "#/components/schemas/OAuthError",
});

/**
 * A client_id that is a URL is fetched (a Client ID Metadata Document): each network address
 * may cause only so many fetches a minute (clientMetadataBudget.ts), with Retry-After.
 */
const FETCH_BUDGET_SPENT = json(
  "Too many client descriptions fetched for this network address; wait Retry-After seconds.",
  { $ref: "#/components/schemas/OAuthError" },
);

/**
 * 400 for a client the server does not know, 401 for one that sent no credentials, 413 for a
 * body over the limit, 429 when looking a URL client up would spend this address's fetches.
 */
const CLIENT_ERRORS = {
  "400": OAUTH_ERROR,
  "401": OAUTH_ERROR,
  "413": TOO_LARGE,
  "429": FETCH_BUDGET_SPENT,
};

const clientOp = (operationId: string, summary: string, extra: OpenApiJson) => ({
  tags: [TAG],
  operationId,
  summary,
  security: clientAuthenticated,
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
          ...CLIENT_ERRORS,
        },
      }),
    },
    [`${basePath}/oauth2/revoke`]: {
      post: clientOp("oauthRevoke", "Revoke an access or refresh token (RFC 7009)", {
        requestBody: tokenForm("The token to revoke."),
        responses: {
          // Its body carries nothing (RFC 7009 §2.2), so none is promised.
          "200": { description: "Revoked, or the token was not valid anyway (RFC 7009 §2.2)." },
          ...CLIENT_ERRORS,
        },
      }),
    },
    [`${basePath}/oauth2/introspect`]: {
      post: clientOp("oauthIntrospect", "Whether a token is active, and its claims (RFC 7662)", {
        requestBody: tokenForm("The access or refresh token to look at."),
        responses: {
          "200": json("The token's state (RFC 7662 §2.2); only `active` when it is not.", {
            type: "object",
            properties: {
              active: { type: "boolean" },
              scope: { type: "string" },
              client_id: { type: "string" },
              sub: { type: "string" },
              aud: { oneOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] },
              iss: { type: "string" },
              exp: { type: "integer" },
              iat: { type: "integer" },
            },
            required: ["active"],
            additionalProperties: true,
          }),
          ...CLIENT_ERRORS,
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
    paths[`${basePath}/oauth2/userinfo`] = {
      get: {
        tags: [TAG],
        operationId: "oauthUserInfo",
        summary: "The signed-in user's claims (OpenID Connect UserInfo)",
        // Only an access token from this server's token endpoint: no session or personal token.
        security: [{ [ACCESS_TOKEN_SCHEME]: [] }],
        responses: {
          "200": json("The claims the token's scopes grant; `sub` always.", {
            type: "object",
            properties: {
              sub: { type: "string" },
              name: { type: "string" },
              email: { type: "string" },
              email_verified: { type: "boolean" },
            },
            required: ["sub"],
            additionalProperties: true,
          }),
          "401": json("No access token, or one that is not valid (RFC 6750 §3).", {
            $ref: "#/components/schemas/OAuthError",
          }),
        },
      },
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
                properties: Object.fromEntries(
                  [
                    "redirect_uris",
                    "client_name",
                    "token_endpoint_auth_method",
                    "grant_types",
                    "response_types",
                    "scope",
                  ].map((field) => [field, clientMetadataFieldSchema(field)]),
                ),
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
          "413": TOO_LARGE,
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
    securitySchemes: {
      [CLIENT_SCHEME]: {
        type: "http",
        scheme: "basic",
        description: "An OAuth client's `client_id` and `client_secret` (client_secret_basic).",
      },
      [ACCESS_TOKEN_SCHEME]: {
        type: "http",
        scheme: "bearer",
        bearerFormat: "JWT",
        description: `An access token from ${basePath}/oauth2/token with the \`openid\` scope.`,
      },
    },
    paths,
  };
}
