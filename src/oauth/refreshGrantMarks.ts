/**
 * Revocation wins over a refresh in flight. Revoking a connected app (or changing the password)
 * writes a mark, then deletes the client's refresh tokens; a refresh that read its token before
 * the delete would otherwise insert a successor after it, whose access token is issued after
 * the mark and so passes the resource side's check. So the refresh grant checks the marks
 * (connectionMarks.ts) twice:
 * - before: a refresh token created at or before the latest mark of its client (or of all the
 *   user's clients) mints nothing;
 * - after the library issued the successor: when the token used is gone (deleted by a
 *   revocation meanwhile) or a mark now covers it, the successor is deleted and the answer is
 *   `invalid_grant`, so no token of that refresh ever reaches the client.
 * A refresh can still pass both checks while the mark's write is on its way: the mark carries
 * the time the write was sent, earlier than the access token's issue time. So a revocation marks
 * once more after its delete (connections.ts, userGrants.ts); a refresh that saw its token
 * before the delete issued its access token before that second mark, which refuses it.
 */
import { createHash } from "node:crypto";
import type { BetterAuthPlugin, DBAdapter } from "better-auth";
import { APIError, createAuthMiddleware } from "better-auth/api";
import type { Connection } from "mongoose";
import { revokedSince } from "./connectionMarks.js";
import { APP_USER_ID_FIELD } from "./sessionBridge.js";

interface RefreshRow {
  id: string;
  clientId: string;
  userId: string;
  createdAt: Date | string;
}

/**
 * How the provider stores a refresh token: its default `storeTokens: "hashed"` (SHA-256,
 * base64url without padding); the instance sets no prefix, format or storage of its own.
 */
const storedForm = (token: string) => createHash("sha256").update(token).digest("base64url");

const refused = () =>
  new APIError("BAD_REQUEST", {
    error: "invalid_grant",
    error_description: "This app's access was revoked; connect it again.",
  });

const isRefreshGrant = (body: unknown): body is { refresh_token: string } => {
  const fields = body as Record<string, unknown> | undefined;
  return fields?.grant_type === "refresh_token" && typeof fields.refresh_token === "string";
};

async function findRefreshRow(adapter: DBAdapter, token: string): Promise<RefreshRow | null> {
  return adapter.findOne<RefreshRow>({
    model: "oauthRefreshToken",
    where: [{ field: "token", value: storedForm(token) }],
  });
}

/** Whether a mark covers `row`: written at or after it was created (to the provider's second). */
async function revokedGrant(
  adapter: DBAdapter,
  marks: Connection,
  row: RefreshRow,
): Promise<boolean> {
  const mirror = await adapter.findOne<Record<string, unknown>>({
    model: "user",
    where: [{ field: "id", value: row.userId }],
  });
  const appUserId = mirror?.[APP_USER_ID_FIELD];
  if (typeof appUserId !== "string") return true;
  return revokedSince(marks, appUserId, row.clientId, new Date(row.createdAt).getTime());
}

export function refreshGrantMarks(marks: Connection) {
  const matcher = (ctx: { path?: string }) => ctx.path === "/oauth2/token";
  return {
    id: "terreno-refresh-grant-marks",
    hooks: {
      before: [
        {
          matcher,
          handler: createAuthMiddleware(async (ctx) => {
            if (!isRefreshGrant(ctx.body)) return;
            const { adapter } = ctx.context;
            const row = await findRefreshRow(adapter, ctx.body.refresh_token);
            // An unknown token is the library's to refuse.
            if (row && (await revokedGrant(adapter, marks, row))) throw refused();
          }),
        },
      ],
      after: [
        {
          matcher,
          handler: createAuthMiddleware(async (ctx) => {
            if (!isRefreshGrant(ctx.body)) return;
            const issued = ctx.context.returned as Record<string, unknown> | undefined;
            if (typeof issued?.access_token !== "string") return;
            const { adapter } = ctx.context;
            const used = await findRefreshRow(adapter, ctx.body.refresh_token);
            if (used && !(await revokedGrant(adapter, marks, used))) return;
            if (typeof issued.refresh_token === "string") {
              const successor = await findRefreshRow(adapter, issued.refresh_token);
              if (successor) {
                const byRefresh = [{ field: "refreshId", value: successor.id }];
                await adapter.deleteMany({ model: "oauthAccessToken", where: byRefresh });
                const byId = [{ field: "id", value: successor.id }];
                await adapter.deleteMany({ model: "oauthRefreshToken", where: byId });
              }
            }
            throw refused();
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
