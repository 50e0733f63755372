/**
 * Revocable refresh-token sessions, kept in MongoDB so every app instance sees the same state.
 *
 * A refresh token is an opaque random string (`trt_` + 43 base64url characters, 256 bits); only
 * its SHA-256 is stored. Each token works once: refreshing marks it used with a conditional
 * update (only one of two racing instances can win) and issues the next token of the same
 * family, whose `rotatedFrom` (unique) names the spent token, so even a database whose
 * conditional updates are not atomic (FerretDB v1) lets only one successor exist. Presenting a spent token again revokes the whole family (reuse detection, OAuth 2.0
 * Security BCP §4.14). Logout revokes a family; a password change or disabling a user revokes
 * all of the user's families (see the hooks in `authUserPlugin`).
 */
import { randomBytes, randomUUID } from "node:crypto";
import mongoose, { type Connection, Schema, type Types } from "mongoose";
import { unauthenticated } from "../core/errors.js";
import type { AnyModel } from "../core/types.js";
import {
  ensureTokenIndexes,
  hashToken,
  tokenModel,
  tokenSchema,
  validUserIds,
} from "./tokenCollection.js";

const REFRESH_TOKEN_MODEL_NAME = "TerrenoRefreshToken";
export const REFRESH_TOKEN_COLLECTION = "terreno_refresh_tokens";
/** Default refresh-token lifetime: 30 days. */
const DEFAULT_REFRESH_TTL_SECONDS = 30 * 24 * 3600;

const PREFIX = "trt_";
const TOKEN_SHAPE = /^trt_[A-Za-z0-9_-]{43}$/;

export interface RefreshTokenRecord {
  userId: Types.ObjectId;
  /** Every token issued by rotating one login's tokens shares its family. */
  familyId: string;
  /** SHA-256 (hex) of the token; the token itself is never stored. */
  tokenHash: string;
  /** The `tokenHash` this token replaced, or `family:<familyId>` for a family's first token. */
  rotatedFrom: string;
  /** A TTL index deletes the record after this time; expiry is also checked on every read. */
  expiresAt: Date;
  usedAt: Date | null;
  revokedAt: Date | null;
  createdAt?: Date;
}

// Its indexes are built by ensureRefreshTokenIndexes(), which tolerates a database without TTL
// indexes; the TTL index on `expiresAt` deletes a record once it has passed (tokenSchema).
const refreshTokenSchema = tokenSchema(
  {
    userId: { type: Schema.Types.ObjectId, required: true, index: true },
    familyId: { type: String, required: true, index: true },
    tokenHash: { type: String, required: true, unique: true },
    rotatedFrom: { type: String, required: true, unique: true },
    expiresAt: { type: Date, required: true },
    usedAt: { type: Date, default: null },
    revokedAt: { type: Date, default: null },
  },
  REFRESH_TOKEN_COLLECTION,
);

/** The refresh-token model on `connection` (the user model's connection), registered on first use. */
export function refreshTokenModel(connection: Connection = mongoose.connection): AnyModel {
  return tokenModel(connection, REFRESH_TOKEN_MODEL_NAME, refreshTokenSchema);
}

/**
 * Builds the refresh-token indexes: unique `tokenHash` and `rotatedFrom`, `userId`, `familyId`,
 * and TTL on `expiresAt` (a plain index where the database refuses TTL, as FerretDB v1 does).
 * Waits for the connection; runs once per connection and database. Call it from a migration
 * when `autoIndex` is off.
 */
export function ensureRefreshTokenIndexes(
  connection: Connection = mongoose.connection,
): Promise<void> {
  return ensureTokenIndexes(connection, REFRESH_TOKEN_MODEL_NAME, refreshTokenSchema);
}

function hashRefreshToken(token: string): string {
  return hashToken(token);
}

/** True when `value` has the shape of a refresh token this module issues. */
function isRefreshTokenShape(value: string): boolean {
  return TOKEN_SHAPE.test(value);
}

function newFamilyId(): string {
  return randomUUID();
}

export interface ConsumedRefreshToken {
  userId: string;
  familyId: string;
  /** The spent token's hash: its successor's `rotatedFrom`. */
  tokenHash: string;
}

export interface NewRefreshToken {
  userId: string | Types.ObjectId;
  /** Omit to start a new family (a new session). */
  rotation?: ConsumedRefreshToken;
  ttlSeconds?: number;
}

function isDuplicateKey(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 11000;
}

/**
 * Stores a new refresh token and returns it (the only time it exists in clear): the first of a
 * new family, or the successor of a token `consumeRefreshToken` just spent. Only one successor
 * can ever exist; a second attempt is a reuse, which revokes the family and throws a 401.
 */
export async function createRefreshToken(
  model: AnyModel,
  { userId, rotation, ttlSeconds = DEFAULT_REFRESH_TTL_SECONDS }: NewRefreshToken,
): Promise<string> {
  const familyId = rotation?.familyId ?? newFamilyId();
  const token = PREFIX + randomBytes(32).toString("base64url");
  try {
    await model.create({
      userId,
      familyId,
      tokenHash: hashRefreshToken(token),
      rotatedFrom: rotation?.tokenHash ?? `family:${familyId}`,
      expiresAt: new Date(Date.now() + ttlSeconds * 1000),
    });
  } catch (error) {
    if (!rotation || !isDuplicateKey(error)) throw error;
    await revokeRefreshFamily(model, familyId);
    throw unauthenticated(
      "The refresh token was already used; every session issued from it is now revoked.",
    );
  }
  return token;
}

/**
 * Spends a refresh token: succeeds once per token. A token that was already spent revokes its
 * whole family. Throws a 401 TerrenoError for every refusal.
 */
export async function consumeRefreshToken(
  model: AnyModel,
  token: string,
): Promise<ConsumedRefreshToken> {
  if (!isRefreshTokenShape(token)) throw unauthenticated("The refresh token is invalid.");
  const tokenHash = hashRefreshToken(token);
  const now = new Date();
  // The one atomic step: of any number of concurrent requests (on any instance), one matches.
  const claim = await model
    .updateOne(
      { tokenHash, usedAt: null, revokedAt: null, expiresAt: { $gt: now } },
      { $set: { usedAt: now } },
    )
    .exec();
  // Read after the update: FerretDB v1 has no findAndModify with a projection.
  const record = await model.findOne({ tokenHash }).lean<RefreshTokenRecord>().exec();
  if (!record) throw unauthenticated("The refresh token is invalid.");
  const familyId = record.familyId;

  if (claim.modifiedCount === 1) {
    // A reuse on another instance may have revoked the family while this token was being
    // issued (after that revocation's updateMany had passed it). Any revoked member means the
    // family is dead.
    if (await model.exists({ familyId, revokedAt: { $ne: null } }).exec()) {
      await revokeRefreshFamily(model, familyId);
      throw unauthenticated("The refresh token has been revoked.");
    }
    return { userId: String(record.userId), familyId, tokenHash };
  }
  if (record.revokedAt) throw unauthenticated("The refresh token has been revoked.");
  if (record.usedAt) {
    // Reuse of a spent token: someone else may hold the family's current token. Kill it all.
    await revokeRefreshFamily(model, familyId);
    throw unauthenticated(
      "The refresh token was already used; every session issued from it is now revoked.",
    );
  }
  throw unauthenticated("The refresh token has expired.");
}

/** Looks a refresh token up without spending it (for logout). */
export async function findRefreshToken(
  model: AnyModel,
  token: string,
): Promise<RefreshTokenRecord | null> {
  if (!isRefreshTokenShape(token)) return null;
  return model
    .findOne({ tokenHash: hashRefreshToken(token) })
    .lean<RefreshTokenRecord>()
    .exec();
}

/** Revokes every token of one family (one login and its rotations). */
export async function revokeRefreshFamily(model: AnyModel, familyId: string): Promise<number> {
  const result = await model
    .updateMany({ familyId, revokedAt: null }, { $set: { revokedAt: new Date() } })
    .exec();
  return result.modifiedCount;
}

/**
 * Revokes every refresh token of the given users, on every app instance (the state is in
 * MongoDB). Access tokens already issued stay valid until they expire (15 minutes by default).
 * `authUserPlugin` calls this when a password hash changes or a user is disabled; call it
 * yourself after writes that bypass Mongoose middleware (`bulkWrite`, the raw driver).
 */
export async function revokeUserSessions(
  userId: string | Types.ObjectId | ReadonlyArray<string | Types.ObjectId>,
  connection: Connection = mongoose.connection,
): Promise<number> {
  const ids = validUserIds(userId);
  if (ids.length === 0) return 0;
  const result = await refreshTokenModel(connection)
    .updateMany({ userId: { $in: ids }, revokedAt: null }, { $set: { revokedAt: new Date() } })
    .exec();
  return result.modifiedCount;
}
