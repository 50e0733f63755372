/**
 * The document's security schemes: a bearer token when the app serves JWT routes or has other
 * bearer providers, and personal access tokens when those routes are on.
 */

import type { OpenApiObject, OpenApiSource } from "./types.js";

export function securitySchemes(source: OpenApiSource): OpenApiObject {
  const schemes: OpenApiObject = {};
  if (source.auth || source.bearer) {
    schemes.bearerAuth = {
      type: "http",
      scheme: "bearer",
      bearerFormat: "JWT",
      description: source.auth
        ? `An access token from ${source.auth.path}/login or ${source.auth.path}/signup.`
        : "A bearer token accepted by the app's auth providers.",
    };
  }
  if (source.auth?.personalTokens) {
    schemes.personalAccessToken = {
      type: "http",
      scheme: "bearer",
      bearerFormat: "tmcp_…",
      description: `A personal access token (\`tmcp_…\`, scope read or write) from POST ${source.auth.path}/tokens.`,
    };
  }
  return schemes;
}

/**
 * The document-wide `security`: each scheme, or none, since whether a route needs a caller is
 * up to its permissions. Undefined when there are no schemes.
 */
export function documentSecurity(schemes: OpenApiObject): OpenApiObject[] | undefined {
  const names = Object.keys(schemes);
  if (names.length === 0) return undefined;
  return [...names.map((name) => ({ [name]: [] })), {}];
}
