/**
 * Device tokens (OWASP's "device cookie" against account lockout): a successful password login
 * gives the client a random token bound to that account, kept hashed in MongoDB. A login
 * presenting it is judged by the device's own failure count and lock alone (claimed by record
 * id, src/ops/loginLockout.ts), so an attacker elsewhere cannot lock the owner out (see
 * loginJudge.ts).
 */
import { randomBytes } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import mongoose, { type Connection, Schema, type Types } from "mongoose";
import type { AnyModel } from "../core/types.js";
import { hashToken, tokenModel, tokenSchema, validUserIds } from "./tokenCollection.js";

const DEVICE_TOKEN_MODEL_NAME = "TerrenoDeviceToken";
const DEVICE_TOKEN_COLLECTION = "terreno_device_tokens";
/** The HttpOnly cookie a browser keeps it in. */
const DEVICE_COOKIE = "terreno_device";
/** A device is remembered this long after its last successful login: 180 days. */
const DEVICE_TOKEN_TTL_SECONDS = 180 * 24 * 3600;

const PREFIX = "tdv_";
const TOKEN_SHAPE = /^tdv_[A-Za-z0-9_-]{43}$/;

export interface DeviceTokenRecord {
  _id: Types.ObjectId;
  userId: Types.ObjectId;
  tokenHash: string;
  expiresAt: Date;
  lastUsedAt: Date | null;
}

const deviceTokenSchema = tokenSchema(
  {
    userId: { type: Schema.Types.ObjectId, required: true, index: true },
    tokenHash: { type: String, required: true, unique: true },
    expiresAt: { type: Date, required: true },
    lastUsedAt: { type: Date, default: null },
  },
  DEVICE_TOKEN_COLLECTION,
);

/** The device-token model on `connection` (the user model's connection). */
export function deviceTokenModel(connection: Connection = mongoose.connection): AnyModel {
  return tokenModel(connection, DEVICE_TOKEN_MODEL_NAME, deviceTokenSchema);
}

/** Stores a new device token for `userId` and returns it: the only time it exists in clear. */
export async function createDeviceToken(
  model: AnyModel,
  userId: string | Types.ObjectId,
): Promise<string> {
  const token = PREFIX + randomBytes(32).toString("base64url");
  await model.create({
    userId,
    tokenHash: hashToken(token),
    expiresAt: new Date(Date.now() + DEVICE_TOKEN_TTL_SECONDS * 1000),
  });
  return token;
}

/** The unexpired record of `token` when it belongs to `userId`; null otherwise. */
export async function findDeviceToken(
  model: AnyModel,
  token: string | undefined,
  userId: string | Types.ObjectId,
): Promise<DeviceTokenRecord | null> {
  if (!token || !TOKEN_SHAPE.test(token)) return null;
  const record = await model
    .findOne({ tokenHash: hashToken(token), userId, expiresAt: { $gt: new Date() } })
    .lean<DeviceTokenRecord>()
    .exec();
  return record ?? null;
}

/** A successful login on the device: its life renewed (its counts are cleared by the lockout). */
export async function deviceSucceeded(model: AnyModel, record: DeviceTokenRecord): Promise<void> {
  const now = new Date();
  await model
    .updateOne(
      { _id: record._id },
      {
        $set: {
          lastUsedAt: now,
          expiresAt: new Date(now.getTime() + DEVICE_TOKEN_TTL_SECONDS * 1000),
        },
      },
    )
    .exec();
}

/**
 * Deletes the device tokens of the given users, except the one whose token is `keep` (the
 * device that changed the password). Called when a password changes or a user is disabled.
 */
export async function revokeUserDeviceTokens(
  userId: string | Types.ObjectId | ReadonlyArray<string | Types.ObjectId>,
  connection: Connection = mongoose.connection,
  keep?: string,
): Promise<number> {
  const ids = validUserIds(userId);
  if (ids.length === 0) return 0;
  const filter: Record<string, unknown> = { userId: { $in: ids } };
  if (keep && TOKEN_SHAPE.test(keep)) filter.tokenHash = { $ne: hashToken(keep) };
  const result = await deviceTokenModel(connection).deleteMany(filter).exec();
  return result.deletedCount;
}

/** The device token a request presents: `deviceToken` in the body, else the cookie. */
export function presentedDeviceToken(
  body: Record<string, unknown> | undefined,
  cookieHeader: string | undefined,
): string | undefined {
  const fromBody = body?.deviceToken;
  if (typeof fromBody === "string") return fromBody;
  for (const part of (cookieHeader ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === DEVICE_COOKIE) return value.join("=");
  }
  return undefined;
}

/**
 * Whether an answer may carry the device token in its JSON: only to a client that is not a
 * browser. A browser sends `Origin` (on every POST) or `Sec-Fetch-Site` (on every request, in
 * current browsers), headers no page script can remove, so an injected script never reads the
 * token: the browser keeps it as the HttpOnly cookie alone. API clients (curl, SDKs; Node's fetch
 * sends `Sec-Fetch-Mode` only) send neither and read `data.deviceToken`; any non-browser client
 * can also take it from the `Set-Cookie` header.
 */
export function deviceTokenInBody(headers: IncomingHttpHeaders): boolean {
  return headers.origin === undefined && headers["sec-fetch-site"] === undefined;
}

/** The `Set-Cookie` value that keeps `token` in a browser: HttpOnly, SameSite=Strict. */
export function deviceCookie(token: string, secure: boolean): string {
  return [
    `${DEVICE_COOKIE}=${token}`,
    "Path=/",
    `Max-Age=${DEVICE_TOKEN_TTL_SECONDS}`,
    "HttpOnly",
    "SameSite=Strict",
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}
