/**
 * JWT issuing and verification (HS256, algorithm pinned), and the AuthProvider that turns
 * a Bearer access token into the caller.
 */
import { createPublicKey, createSecretKey, type KeyObject } from "node:crypto";
import jwt from "jsonwebtoken";
import mongoose from "mongoose";
import { unauthenticated } from "../core/errors.js";
import type { AnyModel, User } from "../core/types.js";
import { type AuthProvider, bearerToken } from "./callerResolver.js";
import { type ConsumedRefreshToken, createRefreshToken, refreshTokenModel } from "./sessions.js";
import { toUser } from "./userPlugin.js";

export interface JwtAuthOptions {
  secret: string;
  /**
   * @deprecated Ignored: refresh tokens are opaque random strings stored hashed in MongoDB
   * (see `src/auth/sessions.ts`), not JWTs.
   */
  refreshSecret?: string;
  /** Access-token lifetime in seconds. Default 15 minutes. */
  expiresInSeconds?: number;
  /**
   * Refresh-token lifetime in seconds, counted from each rotation. Default 30 days. Each
   * refresh token works once; see `POST /auth/refresh_token`.
   */
  refreshExpiresInSeconds?: number;
  /**
   * Secrets used before `secret`, after a rotation: access tokens they signed are still
   * accepted until they expire. Never used to sign. Default none.
   */
  previousSecrets?: string[];
  /** Extra fields signup accepts besides email and password. Default: `["name"]`. */
  signupFields?: string[];
  /**
   * Runs after `POST /auth/signup` created the user, before its tokens are issued, with the
   * new user (as permissions see it: no password hash). E.g. grant a role. A hook that throws
   * fails the request with its error; the user stays created.
   */
  onSignup?: (user: User) => void | Promise<void>;
  /**
   * Runs after `POST /auth/login` checked the password (and that the user is not disabled),
   * before the tokens are issued. A hook that throws fails the login with its error.
   */
  onLogin?: (user: User) => void | Promise<void>;
}

export interface TokenPair {
  token: string;
  refreshToken: string;
  userId: string;
}

type TokenType = "access" | "refresh";
const ALGORITHM = "HS256";

function secretFor(options: JwtAuthOptions, type: TokenType): string {
  return type === "refresh" ? (options.refreshSecret ?? options.secret) : options.secret;
}

/** A short-lived access JWT (HS256, `typ: "access"`, `sub` = the user id). */
export function signAccessToken(options: JwtAuthOptions, userId: string): string {
  return jwt.sign({ typ: "access" }, secretFor(options, "access"), {
    algorithm: ALGORITHM,
    expiresIn: options.expiresInSeconds ?? 15 * 60,
    subject: userId,
  });
}

/**
 * An access JWT and a refresh token. The refresh token is opaque, single-use, and stored hashed
 * in MongoDB on the user model's connection: the first of a new session (family), or with
 * `rotation` the successor of the token `consumeRefreshToken` just spent.
 */
export async function issueTokens(
  userModel: AnyModel,
  options: JwtAuthOptions,
  userId: string,
  rotation?: ConsumedRefreshToken,
): Promise<TokenPair> {
  const refreshToken = await createRefreshToken(refreshTokenModel(userModel.db), {
    userId,
    rotation,
    ttlSeconds: options.refreshExpiresInSeconds,
  });
  return { token: signAccessToken(options, userId), refreshToken, userId };
}

const verificationKeys = new Map<string, KeyObject>();

/**
 * The key jsonwebtoken would derive from `secret` on every verify, derived once: it first tries
 * the string as a public key, which throws for an ordinary secret (a costly exception, about a
 * tenth of a request's CPU in the benchmark), then takes it as an HMAC secret. Same steps, same
 * resulting key, so verification behaves exactly as with the string.
 */
function verificationKey(secret: string): KeyObject | string {
  // No key material: jsonwebtoken answers that itself ("secret or public key must be provided").
  if (!secret) return secret;
  let key = verificationKeys.get(secret);
  if (!key) {
    try {
      key = createPublicKey(secret);
    } catch {
      key = createSecretKey(Buffer.from(secret));
    }
    // Secrets are configuration: a handful at most. Bound the cache all the same.
    if (verificationKeys.size >= 16) verificationKeys.clear();
    verificationKeys.set(secret, key);
  }
  return key;
}

/** `jwt.verify` with the secret, then (a bad signature only) each of `previousSecrets`. */
function verifySignature(options: JwtAuthOptions, token: string, type: TokenType) {
  const secrets = [secretFor(options, type), ...(options.previousSecrets ?? [])];
  for (const [index, secret] of secrets.entries()) {
    try {
      return jwt.verify(token, verificationKey(secret), { algorithms: [ALGORITHM] });
    } catch (error) {
      const badSignature =
        error instanceof jwt.JsonWebTokenError && error.message === "invalid signature";
      if (!badSignature || index === secrets.length - 1) throw error;
    }
  }
  throw new jwt.JsonWebTokenError("invalid signature");
}

/** Returns the user id in a valid token of the given type; throws a 401 otherwise. */
function verifyToken(options: JwtAuthOptions, token: string, type: TokenType): string {
  try {
    const payload = verifySignature(options, token, type);
    if (typeof payload !== "object" || payload.typ !== type || typeof payload.sub !== "string") {
      throw unauthenticated("The token is not a valid access token.");
    }
    // jsonwebtoken accepts a token without `exp`, which would never expire: ours always have one.
    if (typeof payload.exp !== "number") {
      throw unauthenticated("The token has no expiry (exp), so it is refused.");
    }
    return payload.sub;
  } catch (error) {
    if (error instanceof jwt.TokenExpiredError) throw unauthenticated("The token has expired.");
    if (error instanceof jwt.JsonWebTokenError) throw unauthenticated("The token is invalid.");
    throw error;
  }
}

export async function loadActiveUser(userModel: AnyModel, userId: string): Promise<User> {
  if (!mongoose.isValidObjectId(userId)) throw unauthenticated("The token is invalid.");
  const doc = await userModel.findById(userId).exec();
  if (!doc) throw unauthenticated("The user no longer exists.");
  if (doc.get("disabled") === true) throw unauthenticated("This user is disabled.");
  return toUser(doc);
}

const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]*$/;

/** The `alg` of a JWT's header, unverified; undefined when the header cannot be read. */
function headerAlgorithm(token: string): unknown {
  try {
    const header = JSON.parse(
      Buffer.from(token.slice(0, token.indexOf(".")), "base64url").toString(),
    );
    return typeof header === "object" && header !== null ? header.alg : undefined;
  } catch {
    return undefined;
  }
}

export function jwtProvider(userModel: AnyModel, options: JwtAuthOptions): AuthProvider {
  return {
    name: "jwt",
    async resolve(headers) {
      const token = bearerToken(headers);
      if (!token) return undefined;
      // Not a JWT: leave it to another provider (the resolver 401s if none claims it).
      if (!JWT_SHAPE.test(token)) return undefined;
      // Signed otherwise than ours (an external issuer's RS256/ES256 token): its provider's.
      if (headerAlgorithm(token) !== ALGORITHM) return undefined;
      const user = await loadActiveUser(userModel, verifyToken(options, token, "access"));
      return { ...user, authMethod: "jwt" };
    },
  };
}
