/**
 * What the provider's own tables cannot say about one user's connection to one client: when its
 * tokens were last used, and when the person revoked it. Access tokens are self-contained JWTs,
 * so a revocation is a mark the resource side checks: a token issued before it is refused.
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
 * Whether an access token of `clientId` for `userId`, issued at `issuedAtMs`, is still good
 * (not issued before a revocation); a good one is recorded as used.
 */
export async function useConnection(
  connection: Connection,
  userId: string,
  clientId: string,
  issuedAtMs: number,
): Promise<boolean> {
  const model = markModel(connection);
  const mark = await model.findOne({ userId, clientId }).lean<ConnectionMark>().exec();
  if (mark?.revokedAt && issuedAtMs <= mark.revokedAt.getTime()) return false;
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
