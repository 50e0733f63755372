/**
 * What the provider's own tables cannot say about one user's connection to one client: when its
 * tokens were last used, and when the person revoked it. Access tokens are self-contained JWTs,
 * so a revocation is a mark the resource side checks: a token issued before it is refused. The
 * token endpoint checks the same marks (grantMarks.ts), so a refresh token or code issued before a
 * revocation mints nothing after it. A password change marks every client of the user at once
 * (one mark under ALL_CLIENTS).
 */
import { type Connection, Schema } from "mongoose";
import type { AnyModel } from "../core/types.js";

const MODEL_NAME = "TerrenoOAuthConnectionMark";
const COLLECTION = "oauth_connection_marks";
/** `lastUsedAt` is written at most this often per connection (not on every request). */
const TOUCH_INTERVAL_MS = 60_000;
/**
 * The access-token claim holding its issue time in milliseconds (`iat` has whole seconds, too
 * coarse to tell a token issued just before a revocation from one issued just after).
 */
export const ISSUED_AT_MS_CLAIM = "terreno_iat_ms";
/** The client id of a user's mark that stands for every client (a password change). */
const ALL_CLIENTS = "*";

export interface ConnectionMark {
  /** The app user's id. */
  userId: string;
  clientId: string;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

const schema = new Schema(
  {
    userId: { type: String, required: true },
    clientId: { type: String, required: true },
    revokedAt: { type: Date, default: null },
    lastUsedAt: { type: Date, default: null },
  },
  { collection: COLLECTION, versionKey: false },
);
schema.index({ userId: 1, clientId: 1 }, { unique: true });

function markModel(connection: Connection): AnyModel {
  return connection.models[MODEL_NAME] ?? connection.model(MODEL_NAME, schema);
}

/** Registers the model now, so its index is built before the first request needs it. */
export function prepareConnectionMarks(connection: Connection): void {
  markModel(connection);
}

/** Every mark of `userId`, by client id. */
export async function connectionMarksOf(
  connection: Connection,
  userId: string,
): Promise<Map<string, ConnectionMark>> {
  const marks = await markModel(connection).find({ userId }).lean<ConnectionMark[]>().exec();
  return new Map(marks.map((mark) => [mark.clientId, mark]));
}

/** From now on, every token `clientId` holds for `userId` is refused. */
export async function markRevoked(
  connection: Connection,
  userId: string,
  clientId: string,
): Promise<void> {
  await markModel(connection)
    .updateOne({ userId, clientId }, { $set: { revokedAt: new Date() } }, { upsert: true })
    .exec();
}

/**
 * From now on, every token any client holds for each of `userIds` is refused (a password change
 * or reset, a disabled user).
 */
export async function markAllRevoked(connection: Connection, userIds: string[]): Promise<void> {
  for (const userId of userIds) await markRevoked(connection, userId, ALL_CLIENTS);
}

/** The client's own mark, and the user's mark for every client. */
async function marksFor(connection: Connection, userId: string, clientId: string) {
  const marks = await markModel(connection)
    .find({ userId, clientId: { $in: [clientId, ALL_CLIENTS] } })
    .lean<ConnectionMark[]>()
    .exec();
  const latest = Math.max(...marks.map((mark) => mark.revokedAt?.getTime() ?? 0), 0);
  return { own: marks.find((mark) => mark.clientId === clientId), revokedAtMs: latest };
}

/**
 * Whether `clientId`'s grant for `userId` was revoked at or after `sinceMs` (a refresh token's
 * creation time): such a refresh token belongs to a revoked grant.
 */
export async function revokedSince(
  connection: Connection,
  userId: string,
  clientId: string,
  sinceMs: number,
): Promise<boolean> {
  const revokedAtMs = await lastRevokedAt(connection, userId, clientId);
  return revokedAtMs > 0 && revokedAtMs >= sinceMs;
}

/** When `clientId`'s grant for `userId` was last revoked, in ms; 0 if never. */
export async function lastRevokedAt(
  connection: Connection,
  userId: string,
  clientId: string,
): Promise<number> {
  return (await marksFor(connection, userId, clientId)).revokedAtMs;
}

/**
 * Whether an access token of `clientId` for `userId`, issued at `issuedAtMs`, is still good
 * (not issued before a revocation of the client or of all the user's clients); a good one is
 * recorded as used.
 */
export async function useConnection(
  connection: Connection,
  userId: string,
  clientId: string,
  issuedAtMs: number,
): Promise<boolean> {
  const model = markModel(connection);
  const { own: mark, revokedAtMs } = await marksFor(connection, userId, clientId);
  if (revokedAtMs > 0 && issuedAtMs <= revokedAtMs) return false;
  const now = Date.now();
  if (!mark?.lastUsedAt || now - mark.lastUsedAt.getTime() >= TOUCH_INTERVAL_MS) {
    // Best effort: two instances racing to create the mark is no reason to refuse the call.
    await model
      .updateOne({ userId, clientId }, { $set: { lastUsedAt: new Date(now) } }, { upsert: true })
      .exec()
      .catch(() => undefined);
  }
  return true;
}
