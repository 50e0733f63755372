/**
 * What an app user has granted through the authorization server, read and ended through Better
 * Auth's own adapter (so its collection names stay the library's): the browser sessions of the
 * user's mirror, and the OAuth refresh tokens, access-token records and consents it holds.
 */
import type { Connection } from "mongoose";
import type { OAuthInstance } from "./authInstance.js";
import { markAllRevoked } from "./connectionMarks.js";
import { APP_USER_ID_FIELD } from "./sessionBridge.js";

/** The provider's models holding one user's grants, by Better Auth model name. */
const GRANT_MODELS = ["oauthRefreshToken", "oauthAccessToken", "oauthConsent"] as const;

export type Context = Awaited<OAuthInstance["$context"]>;

/** The Better Auth user mirroring `appUserId` (sessionBridge.ts), if it ever signed in. */
export async function mirrorUserId(ctx: Context, appUserId: string): Promise<string | undefined> {
  const mirror = await ctx.adapter.findOne<{ id: string }>({
    model: "user",
    where: [{ field: APP_USER_ID_FIELD, value: appUserId }],
  });
  return mirror?.id;
}

/**
 * Ends every OAuth grant of the given app users: the access tokens already issued (a mark for
 * all their clients, which the resource side and the refresh grant check, written first as when
 * one app is revoked), their sign-in sessions (so the old cookie authorizes nothing), refresh
 * tokens (no more access tokens minted) and consents (a client must ask again).
 */
export async function revokeOAuthGrants(
  auth: OAuthInstance,
  marks: Connection,
  appUserIds: string[],
): Promise<void> {
  await markAllRevoked(marks, appUserIds);
  const ctx = await auth.$context;
  for (const appUserId of appUserIds) {
    const userId = await mirrorUserId(ctx, appUserId);
    if (!userId) continue;
    await ctx.internalAdapter.deleteUserSessions(userId);
    for (const model of GRANT_MODELS) {
      await ctx.adapter.deleteMany({ model, where: [{ field: "userId", value: userId }] });
    }
  }
  // Again, once the grants are gone: a refresh that ran while the first mark's write was on its
  // way holds an access token issued after that mark's time (connections.ts, revokeConnection).
  await markAllRevoked(marks, appUserIds);
}
