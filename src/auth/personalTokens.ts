/**
 * Personal access tokens for CLIs and desktop MCP clients: `Authorization: Bearer tmcp_…` on
 * REST and /mcp alike, scoped `read` or `write`, revocable at once.
 *
 * A token is `tmcp_` + 43 base64url characters (256 random bits); only its SHA-256 is stored, in
 * the `terreno_access_tokens` collection on the user model's connection, so every app instance
 * sees a revocation on the next request (each request looks the token up). Expiry is checked on
 * every read; a TTL index on `expiresAt` removes expired records (where the database has TTL
 * indexes: FerretDB v1 has none).
 *
 * The routes (`POST|GET /auth/tokens`, `DELETE /auth/tokens/:id`) are in tokenRoutes.ts.
 */
import { randomBytes } from "node:crypto";
import mongoose, { type Connection, Schema, type Types } from "mongoose";
import { unauthenticated } from "../core/errors.js";
import type { AnyModel, User } from "../core/types.js";
import { type AuthProvider, bearerToken } from "./callerResolver.js";
import { registerGrantRevoker } from "./grantRevocation.js";
import { loadActiveUser } from "./jwt.js";
import {
  ensureTokenIndexes,
  hashToken,
  tokenModel,
  tokenSchema,
  validUserIds,
} from "./tokenCollection.js";

const ACCESS_TOKEN_MODEL_NAME = "TerrenoAccessToken";
export const ACCESS_TOKEN_COLLECTION = "terreno_access_tokens";
export const PERSONAL_TOKEN_PREFIX = "tmcp_";
const TOKEN_SHAPE = /^tmcp_[A-Za-z0-9_-]{43}$/;

export const PERSONAL_TOKEN_SCOPES = ["read", "write"] as const;
export type PersonalTokenScope = (typeof PERSONAL_TOKEN_SCOPES)[number];

export interface PersonalTokenOptions {
  /** Lifetime when the request names none. Default 90 days. */
  defaultExpiresInDays?: number;
  /** The longest lifetime a caller may ask for. Default 365 days. */
  maxExpiresInDays?: number;
  /** How many unexpired tokens one user may hold. Default 50. */
  maxPerUser?: number;
}

export const DEFAULT_PERSONAL_TOKEN_OPTIONS: Required<PersonalTokenOptions> = {
  defaultExpiresInDays: 90,
  maxExpiresInDays: 365,
  maxPerUser: 50,
};

export interface AccessTokenRecord {
  _id: Types.ObjectId;
  userId: Types.ObjectId;
  name: string;
  scope: PersonalTokenScope;
  /** SHA-256 (hex) of the token; the token itself is never stored. */
  tokenHash: string;
  expiresAt: Date;
  /** Updated at most once a minute. */
  lastUsedAt: Date | null;
  /** The workspace the token is bound to: it acts there only (src/core/workspace.ts). */
  workspaceId?: string | null;
  createdAt?: Date;
}

/** What the list route shows of a token: never its value or hash. */
export interface PersonalTokenInfo {
  id: string;
  name: string;
  scope: PersonalTokenScope;
  createdAt: Date | null;
  expiresAt: Date;
  lastUsedAt: Date | null;
  /** The workspace the token is bound to; absent for an unbound token. */
  workspaceId?: string;
}

// Its indexes are built by ensureAccessTokenIndexes(), which tolerates a database without TTL
// indexes.
const accessTokenSchema = tokenSchema(
  {
    userId: { type: Schema.Types.ObjectId, required: true, index: true },
    name: { type: String, required: true, maxlength: 100 },
    scope: { type: String, required: true, enum: PERSONAL_TOKEN_SCOPES },
    tokenHash: { type: String, required: true, unique: true },
    expiresAt: { type: Date, required: true },
    lastUsedAt: { type: Date, default: null },
    workspaceId: { type: String, default: null },
  },
  ACCESS_TOKEN_COLLECTION,
);

/** The personal-token model on `connection` (the user model's connection), registered on first use. */
export function accessTokenModel(connection: Connection = mongoose.connection): AnyModel {
  return tokenModel(connection, ACCESS_TOKEN_MODEL_NAME, accessTokenSchema);
}

/**
 * Builds the personal-token indexes: unique `tokenHash`, `userId`, and TTL on `expiresAt` (a
 * plain index where the database refuses TTL, as FerretDB v1 does). Waits for the connection;
 * runs once per connection and database. Call it from a migration when `autoIndex` is off.
 */
export function ensureAccessTokenIndexes(
  connection: Connection = mongoose.connection,
): Promise<void> {
  return ensureTokenIndexes(connection, ACCESS_TOKEN_MODEL_NAME, accessTokenSchema);
}

function hashPersonalToken(token: string): string {
  return hashToken(token);
}

/** True when `value` has the shape of a personal access token (`tmcp_` + 43 base64url chars). */
function isPersonalTokenShape(value: string): boolean {
  return TOKEN_SHAPE.test(value);
}

/** The scopes a caller holding a token of this scope gets: write implies read. */
function scopesOfPersonalToken(scope: PersonalTokenScope): string[] {
  return scope === "write" ? ["read", "write"] : ["read"];
}

function personalTokenInfo(record: AccessTokenRecord): PersonalTokenInfo {
  return {
    id: String(record._id),
    name: record.name,
    scope: record.scope,
    createdAt: record.createdAt ?? null,
    expiresAt: record.expiresAt,
    lastUsedAt: record.lastUsedAt ?? null,
    ...(record.workspaceId ? { workspaceId: record.workspaceId } : {}),
  };
}

export interface NewPersonalToken {
  userId: string | Types.ObjectId;
  name: string;
  scope: PersonalTokenScope;
  expiresInDays: number;
  /** Binds the token to this workspace (the caller's membership checked by the route). */
  workspaceId?: string;
}

/** Stores a new token and returns it with its record: the only time the token exists in clear. */
export async function createPersonalToken(
  model: AnyModel,
  { userId, name, scope, expiresInDays, workspaceId }: NewPersonalToken,
): Promise<{ token: string; info: PersonalTokenInfo }> {
  const token = PERSONAL_TOKEN_PREFIX + randomBytes(32).toString("base64url");
  const doc = await model.create({
    userId,
    name,
    scope,
    tokenHash: hashPersonalToken(token),
    expiresAt: new Date(Date.now() + expiresInDays * 24 * 3600 * 1000),
    workspaceId: workspaceId ?? null,
  });
  return { token, info: personalTokenInfo(doc.toObject() as AccessTokenRecord) };
}

/** The user's unexpired tokens, newest first. */
export async function listPersonalTokens(
  model: AnyModel,
  userId: string,
): Promise<PersonalTokenInfo[]> {
  const records = await model
    .find({ userId, expiresAt: { $gt: new Date() } })
    .sort({ createdAt: -1 })
    .lean<AccessTokenRecord[]>()
    .exec();
  return records.map(personalTokenInfo);
}

export async function countPersonalTokens(model: AnyModel, userId: string): Promise<number> {
  return model.countDocuments({ userId, expiresAt: { $gt: new Date() } }).exec();
}

/** Deletes one of the user's tokens; false when the user has no token with this id. */
export async function revokePersonalToken(
  model: AnyModel,
  userId: string,
  tokenId: string,
): Promise<boolean> {
  if (!mongoose.isValidObjectId(tokenId)) return false;
  const result = await model.deleteOne({ _id: tokenId, userId }).exec();
  return result.deletedCount === 1;
}

/**
 * Deletes every personal token of the given users (e.g. when an account is closed). Disabled
 * users are refused anyway: the provider loads the user on every request.
 */
export async function revokeUserPersonalTokens(
  userId: string | Types.ObjectId | ReadonlyArray<string | Types.ObjectId>,
  connection: Connection = mongoose.connection,
): Promise<number> {
  const ids = validUserIds(userId);
  if (ids.length === 0) return 0;
  const result = await accessTokenModel(connection)
    .deleteMany({ userId: { $in: ids } })
    .exec();
  return result.deletedCount;
}

/** `lastUsedAt` is written at most this often per token, not on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Looks a personal token up (by hash, so a revocation takes effect on the next request) and
 * returns its owner with `scopes` and `tokenId`. Throws a 401 for an unknown, revoked or expired
 * token and for a missing or disabled user.
 */
async function resolvePersonalToken(userModel: AnyModel, token: string): Promise<User> {
  const refused = () =>
    unauthenticated("The personal access token is invalid, expired or revoked.");
  if (!isPersonalTokenShape(token)) throw refused();
  const model = accessTokenModel(userModel.db);
  const record = await model
    .findOne({ tokenHash: hashPersonalToken(token) })
    .lean<AccessTokenRecord>()
    .exec();
  const now = new Date();
  if (!record || !(record.expiresAt > now)) throw refused();
  const user = await loadActiveUser(userModel, String(record.userId));
  if (!record.lastUsedAt || now.getTime() - record.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    // Best effort: bookkeeping never fails the request.
    await model
      .updateOne({ _id: record._id }, { $set: { lastUsedAt: now } })
      .exec()
      .catch(() => undefined);
  }
  return {
    ...user,
    scopes: scopesOfPersonalToken(record.scope),
    tokenId: String(record._id),
    authMethod: "pat",
    ...(record.workspaceId ? { boundWorkspaceId: record.workspaceId } : {}),
  };
}

/** The AuthProvider for `Authorization: Bearer tmcp_…` (other bearer tokens are not its). */
export function personalTokenProvider(userModel: AnyModel): AuthProvider {
  // Registered now, so its indexes are built before the first request needs them.
  accessTokenModel(userModel.db);
  // A password change, reset or disabling the user deletes their tokens.
  registerGrantRevoker(userModel.db, "personal-tokens", revokeUserPersonalTokens);
  return {
    name: "personal-token",
    async resolve(headers) {
      const token = bearerToken(headers);
      if (!token?.startsWith(PERSONAL_TOKEN_PREFIX)) return undefined;
      return resolvePersonalToken(userModel, token);
    },
  };
}
