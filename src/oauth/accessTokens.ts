/**
 * The resource-server side: the access tokens this authorization server issues are JWTs,
 * verified by `externalJwtProvider` (signature, `iss`, `aud` = the MCP resource, `exp`) against
 * the instance's own JWKS, read in-process rather than over HTTP. The token's `scope` limits
 * the caller (mcp:read / mcp:write, src/core/scopes.ts), and its app-user claim names the caller.
 * A token issued before its user revoked the client (`DELETE /auth/connections/:clientId`) is
 * refused.
 */
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import type { AuthProvider } from "../auth/callerResolver.js";
import { externalJwtProvider } from "../auth/externalJwt.js";
import { loadActiveUser } from "../auth/jwt.js";
import { unauthenticated } from "../core/errors.js";
import type { AnyModel } from "../core/types.js";
import { ISSUED_AT_MS_CLAIM, useConnection } from "./connectionMarks.js";
import { APP_USER_ID_CLAIM } from "./sessionBridge.js";

/**
 * Leeway for `exp` and `nbf`: this server issued the token itself (its own clock, or its
 * instances' synchronized ones), so the 30 s meant for outside issuers would only stretch the
 * lifetime the app chose (`accessTokenTtlSeconds`).
 */
const CLOCK_TOLERANCE_SECONDS = 2;

/** Seconds between two reloads of the key set for an unknown `kid` (a rotated key). */
const RELOAD_COOLDOWN_MS = 30_000;

/**
 * A jose key resolver over a key set loaded on demand: once, then again when a token names a
 * key it does not hold (at most every 30 s, so forged `kid`s cannot make it reload per request).
 */
function reloadingKeySet(load: () => Promise<JSONWebKeySet>): JWTVerifyGetKey {
  let current: Promise<JWTVerifyGetKey> | undefined;
  let loadedAt = 0;
  const reload = () => {
    loadedAt = Date.now();
    current = load().then((jwks) => createLocalJWKSet(jwks));
    // A failed load is retried by the next request rather than cached.
    current.catch(() => {
      current = undefined;
    });
    return current;
  };
  return async (header, token) => {
    const keys = await (current ?? reload());
    try {
      return await keys(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      if (Date.now() - loadedAt < RELOAD_COOLDOWN_MS) throw error;
      return (await reload())(header, token);
    }
  };
}

export interface OAuthAccessTokenOptions {
  issuer: string;
  resource: string;
  userModel: AnyModel;
  loadJwks: () => Promise<JSONWebKeySet>;
}

export function oauthAccessTokenProvider(options: OAuthAccessTokenOptions): AuthProvider {
  return externalJwtProvider({
    name: "oauth",
    issuer: options.issuer,
    audience: options.resource,
    keys: reloadingKeySet(options.loadJwks),
    clockToleranceSeconds: CLOCK_TOLERANCE_SECONDS,
    userFromClaims: async (claims) => {
      const appUserId = claims[APP_USER_ID_CLAIM];
      if (typeof appUserId !== "string") throw unauthenticated("The token names no user.");
      const user = await loadActiveUser(options.userModel, appUserId);
      const clientId = claims.azp ?? claims.client_id;
      if (typeof clientId === "string") {
        const issuedMs = claims[ISSUED_AT_MS_CLAIM];
        const issuedAt = typeof issuedMs === "number" ? issuedMs : (claims.iat ?? 0) * 1000;
        if (!(await useConnection(options.userModel.db, appUserId, clientId, issuedAt))) {
          throw unauthenticated("This app's access was revoked; connect it again.");
        }
      }
      return user;
    },
  });
}
