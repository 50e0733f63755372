/**
 * The one thing the library cannot know: who signed in. The sign-in page verifies the app's own
 * email and password, then calls this server-only endpoint, which gives that person a Better
 * Auth session (on a Better Auth user mirroring the app user, created on first sign-in) and
 * sets its cookie. The OAuth provider's own after-hook sees the new session cookie and resumes
 * the authorization request (`oauth_query`, signed by the provider) where the login page
 * interrupted it: on to consent, or straight back to the client.
 */
import type { BetterAuthPlugin } from "better-auth";
import { createAuthEndpoint } from "better-auth/api";
import { setSessionCookie } from "better-auth/cookies";
import { z } from "zod";

/** The field of the mirror user holding the app user's id. */
export const APP_USER_ID_FIELD = "terrenoUserId";
/** The access-token claim carrying the app user's id (set by `customAccessTokenClaims`). */
export const APP_USER_ID_CLAIM = "app_user_id";

export const SESSION_BRIDGE_ENDPOINT = "terrenoOAuthSession";
/** Its path under basePath: named so a test can show that HTTP there reaches nothing. */
export const SESSION_BRIDGE_PATH = "/terreno/session";

const bridgeBody = z.object({
  appUserId: z.string().min(1),
  email: z.string().min(3),
  name: z.string().optional(),
  oauth_query: z.string().min(1),
});

export function sessionBridge() {
  return {
    id: "terreno-session-bridge",
    schema: {
      user: {
        fields: { [APP_USER_ID_FIELD]: { type: "string", required: false, input: false } },
      },
    },
    endpoints: {
      [SESSION_BRIDGE_ENDPOINT]: createAuthEndpoint(
        SESSION_BRIDGE_PATH,
        // SERVER_ONLY: never routed from HTTP, so only code that has checked a password calls it.
        { method: "POST", body: bridgeBody, metadata: { SERVER_ONLY: true } },
        async (ctx) => {
          const { appUserId, email, name } = ctx.body;
          const { adapter, internalAdapter } = ctx.context;
          const found = await adapter.findOne<{ id: string; email: string }>({
            model: "user",
            where: [{ field: APP_USER_ID_FIELD, value: appUserId }],
          });
          let user = found ? await internalAdapter.findUserById(found.id) : null;
          if (!user) {
            user = await internalAdapter.createUser(
              {
                email,
                name: name ?? email,
                emailVerified: true,
                [APP_USER_ID_FIELD]: appUserId,
              },
              { method: "terreno-mcp" },
            );
          } else if (user.email !== email) {
            // The app's email changed; the mirror follows (the id claim is what maps tokens).
            user = await internalAdapter.updateUser(user.id, { email });
          }
          const session = await internalAdapter.createSession(user.id);
          await setSessionCookie(ctx, { session, user });
          return ctx.json({ signedIn: true });
        },
      ),
    },
  } satisfies BetterAuthPlugin;
}
