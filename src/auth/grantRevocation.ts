/**
 * Everything a user granted ends together: when a password changes (or is reset) or a user is
 * disabled, `revokeUserGrants` revokes their refresh-token families and device tokens, and runs
 * every revoker registered on the user model's connection: personal access tokens
 * (personalTokens.ts) and the OAuth server's access tokens, refresh tokens, consents and
 * browser sessions (src/oauth), which register themselves so this module imports neither.
 */
import mongoose, { type Connection, type Types } from "mongoose";
import { revokeUserDeviceTokens } from "./deviceTokens.js";
import { revokeUserSessions } from "./sessions.js";
import { validUserIds } from "./tokenCollection.js";

/** Revokes one kind of grant of the given users (valid ObjectId strings). */
export type GrantRevoker = (userIds: string[], connection: Connection) => Promise<unknown>;

const revokers = new WeakMap<Connection, Map<string, GrantRevoker>>();

/**
 * Registers `revoker` under `name` on `connection`; registering a name again replaces it (an
 * app built twice over one connection, as tests do, keeps one).
 */
export function registerGrantRevoker(
  connection: Connection,
  name: string,
  revoker: GrantRevoker,
): void {
  let byName = revokers.get(connection);
  if (!byName) {
    byName = new Map();
    revokers.set(connection, byName);
  }
  byName.set(name, revoker);
}

/**
 * Ends every grant of the given users: refresh-token families, device tokens, and whatever is
 * registered (PATs, OAuth grants and sessions). `authUserPlugin` calls it when a password hash
 * changes or a user is disabled; call it yourself after writes that bypass Mongoose middleware.
 * The app's own access JWTs already issued stay valid until they expire (15 minutes by
 * default); the OAuth server's access tokens die at once (its revoker marks every client).
 */
export async function revokeUserGrants(
  userId: string | Types.ObjectId | ReadonlyArray<string | Types.ObjectId>,
  connection: Connection = mongoose.connection,
): Promise<void> {
  const ids = validUserIds(userId).map(String);
  if (ids.length === 0) return;
  await revokeUserSessions(ids, connection);
  await revokeUserDeviceTokens(ids, connection);
  for (const revoker of revokers.get(connection)?.values() ?? []) {
    await revoker(ids, connection);
  }
}
