/**
 * Access tokens from an external identity provider (Auth0, Keycloak, Entra ID, Clerk, WorkOS,
 * any OAuth 2.1 / OIDC issuer): JWTs verified with `jose` against the issuer's JWKS, fetched
 * and cached (`createRemoteJWKSet`, refetched on an unknown `kid`).
 *
 * Checked on every request: the signature with an allowlisted asymmetric algorithm, `iss`,
 * `aud` (the MCP resource URL: a token issued for another resource is refused, RFC 8707),
 * `exp` (required) and `nbf`, with a small clock tolerance. The claims become a local user
 * through `userFromClaims`, and the token's scopes (`scope`, space-separated, or `scp`) limit
 * what the caller may do (src/core/scopes.ts).
 */
import {
  createRemoteJWKSet,
  decodeJwt,
  errors,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
  type RemoteJWKSetOptions,
} from "jose";
import { defineErrorCode, TerrenoError, unauthenticated } from "../core/errors.js";
import { MCP_SCOPES } from "../core/scopes.js";
import type { User } from "../core/types.js";
import { type AuthProvider, bearerToken } from "./callerResolver.js";

/** The issuer's keys could not be fetched (timeout, network, a bad JWKS): 503, not the caller's fault. */
export const IDENTITY_PROVIDER_UNAVAILABLE = defineErrorCode("identity_provider_unavailable", {
  status: 503,
  title: "Identity Provider Unavailable",
});

/** Asymmetric JWS algorithms accepted by default. Symmetric (HS*) and `none` never are. */
export const DEFAULT_EXTERNAL_JWT_ALGORITHMS: readonly string[] = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

export interface ExternalJwtProviderOptions {
  /** The issuer identifier, exactly as in the tokens' `iss`, e.g. `https://tenant.auth0.com/`. */
  issuer: string;
  /** Where the issuer publishes its keys (the `jwks_uri` of its discovery document). */
  jwksUri?: string | URL;
  /**
   * The issuer's keys without a fetch, instead of `jwksUri`: a `jose` key resolver such as
   * `createLocalJWKSet(jwks)`, for an issuer running in this process (`terreno-mcp/oauth`).
   */
  keys?: JWTVerifyGetKey;
  /**
   * The audience tokens must carry in `aud`: this API's resource identifier, which for MCP
   * clients is the MCP endpoint's URL (`mcp.resourceUrl`, e.g. `https://api.example.com/mcp`).
   * Tokens for any other audience are refused.
   */
  audience: string | string[];
  /** Allowed signing algorithms. Default: RS/PS/ES 256–512 and EdDSA. Symmetric ones are refused. */
  algorithms?: string[];
  /** Leeway for `exp` and `nbf`, in seconds. Default 30. */
  clockToleranceSeconds?: number;
  /**
   * The local user for verified claims, e.g. found (or created) by `sub` or `email`. Return
   * `undefined` to refuse the token (401).
   */
  userFromClaims: (
    claims: JWTPayload,
    token: string,
  ) => User | undefined | Promise<User | undefined>;
  /**
   * The caller's scopes. Default: the `scope` claim (space-separated) or `scp` (an array or a
   * string), and full access (`mcp:read mcp:write`) when the token has neither. Scopes the
   * framework knows are `mcp:read`/`read` and `mcp:write`/`write`; a token whose scopes name
   * neither may do nothing, so map your IdP's own scopes here if they differ.
   */
  scopesFromClaims?: (claims: JWTPayload) => readonly string[] | undefined;
  /** Options for the JWKS fetch (timeout, cooldown, cache age, headers). */
  jwks?: RemoteJWKSetOptions;
  /** The provider's name (error messages, logs). Default `external-jwt`. */
  name?: string;
}

const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/** The `scope` (space-separated) or `scp` (array or string) claim; undefined when neither is set. */
export function scopesFromStandardClaims(claims: JWTPayload): string[] | undefined {
  const read = (value: unknown): string[] | undefined => {
    if (typeof value === "string") return value.split(/\s+/).filter(Boolean);
    if (Array.isArray(value))
      return value.filter((item): item is string => typeof item === "string");
    return undefined;
  };
  return read(claims.scope) ?? read(claims.scp);
}

function refusal(error: unknown): TerrenoError {
  if (error instanceof errors.JWTExpired) return unauthenticated("The token has expired.");
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "aud") {
      return unauthenticated("The token was issued for another resource (audience).");
    }
    if (error.claim === "nbf") return unauthenticated("The token is not valid yet.");
    return unauthenticated(`The token's "${error.claim}" claim is invalid.`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return unauthenticated("The token's signing algorithm is not allowed.");
  }
  const unavailable =
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    (error instanceof errors.JOSEError && error.code === "ERR_JOSE_GENERIC") ||
    !(error instanceof errors.JOSEError);
  if (unavailable) {
    return new TerrenoError(
      IDENTITY_PROVIDER_UNAVAILABLE,
      "The identity provider's signing keys could not be fetched; retry shortly.",
      undefined,
      { cause: error, headers: { "Retry-After": "5" } },
    );
  }
  return unauthenticated("The token is invalid.");
}

/**
 * An AuthProvider for JWT access tokens of one external issuer. Tokens of other issuers (and
 * non-JWT tokens) are left to the other providers; several issuers mean several providers.
 */
export function externalJwtProvider(options: ExternalJwtProviderOptions): AuthProvider {
  const algorithms = options.algorithms ?? [...DEFAULT_EXTERNAL_JWT_ALGORITHMS];
  const symmetric = algorithms.filter((alg) => /^HS|^none$/i.test(alg));
  if (symmetric.length > 0) {
    throw new Error(
      `externalJwtProvider: ${symmetric.join(", ")} not allowed; an external issuer signs with a private key.`,
    );
  }
  if (algorithms.length === 0) throw new Error("externalJwtProvider: algorithms is empty.");
  const audiences = Array.isArray(options.audience) ? options.audience : [options.audience];
  if (audiences.length === 0 || audiences.some((aud) => typeof aud !== "string" || !aud)) {
    throw new Error("externalJwtProvider: audience is required (the MCP resource URL).");
  }
  if (!options.issuer) throw new Error("externalJwtProvider: issuer is required.");
  if (!options.jwksUri === !options.keys) {
    throw new Error("externalJwtProvider: set exactly one of jwksUri and keys.");
  }
  const keys: JWTVerifyGetKey =
    options.keys ?? createRemoteJWKSet(new URL(options.jwksUri as string | URL), options.jwks);
  const scopesOf = options.scopesFromClaims ?? scopesFromStandardClaims;
  const clockTolerance = options.clockToleranceSeconds ?? 30;

  return {
    name: options.name ?? "external-jwt",
    async resolve(headers) {
      const token = bearerToken(headers);
      if (!token || !JWT_SHAPE.test(token)) return undefined;
      let issuer: unknown;
      try {
        issuer = decodeJwt(token).iss;
      } catch {
        return undefined;
      }
      // Another issuer's token (or the app's own session JWT): not this provider's.
      if (issuer !== options.issuer) return undefined;
      let claims: JWTPayload;
      try {
        ({ payload: claims } = await jwtVerify(token, keys, {
          issuer: options.issuer,
          audience: audiences,
          algorithms,
          clockTolerance,
          requiredClaims: ["exp", "sub"],
        }));
      } catch (error) {
        throw refusal(error);
      }
      const user = await options.userFromClaims(claims, token);
      if (!user) throw unauthenticated("No account matches this token.");
      const scopes = scopesOf(claims);
      // Always set: the caller holds a token, not a session (it may not mint personal tokens).
      return {
        ...user,
        scopes: scopes === undefined ? [...MCP_SCOPES] : [...scopes],
        authMethod: "oauth",
      };
    },
  };
}
