/**
 * Revocation wins over a refresh or a code exchange in flight. Revoking a connected app (or changing the password)
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
 *
 * An authorization code is held to the same rule: one issued at or before a mark of its client
 * is refused at the exchange, before and after the library issues its tokens (the person revoked
 * the app, or changed the password, between consenting and the app's exchange).
 */
import { createHash } from "node:crypto";
import type { BetterAuthPlugin, DBAdapter } from "better-auth";
import { APIError, createAuthMiddleware } from "better-auth/api";
import type { Connection } from "mongoose";
import { lastRevokedAt, revokedSince } from "./connectionMarks.js";
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

const isCodeGrant = (body: unknown): body is { code: string } => {
  const fields = body as Record<string, unknown> | undefined;
  return fields?.grant_type === "authorization_code" && typeof fields.code === "string";
};

async function findRefreshRow(adapter: DBAdapter, token: string): Promise<RefreshRow | null> {
  return adapter.findOne<RefreshRow>({
    model: "oauthRefreshToken",
    where: [{ field: "token", value: storedForm(token) }],
  });
}

/** The grant behind a code: the provider stores it hashed, as a verification value. */
async function findCodeGrant(adapter: DBAdapter, code: string): Promise<RefreshRow | null> {
  const row = await adapter.findOne<{ value: string; createdAt: Date | string }>({
    model: "verification",
    where: [{ field: "identifier", value: storedForm(code) }],
  });
  if (!row) return null;
  try {
    const value = JSON.parse(row.value) as { userId?: unknown; query?: { client_id?: unknown } };
    const { userId } = value;
    const clientId = value.query?.client_id;
    if (typeof userId !== "string" || typeof clientId !== "string") return null;
    return { id: "", userId, clientId, createdAt: row.createdAt };
  } catch {
    // Not ours to judge: the library refuses a malformed value itself.
    return null;
  }
}

/**
 * The codes being exchanged on this instance, by stored form, from the before hook (the library
 * consumes the code) to the after hook. An exchange that throws leaves its entry, so entries
 * older than a minute are dropped on the next exchange.
 */
const codesInExchange = new Map<string, { grant: RefreshRow; at: number }>();
const CODE_ENTRY_MS = 60_000;

function rememberCode(code: string, grant: RefreshRow): void {
  const now = Date.now();
  for (const [key, entry] of codesInExchange) {
    if (now - entry.at > CODE_ENTRY_MS) codesInExchange.delete(key);
  }
  codesInExchange.set(storedForm(code), { grant, at: now });
}

function recallCode(code: string): RefreshRow | undefined {
  const key = storedForm(code);
  const entry = codesInExchange.get(key);
  codesInExchange.delete(key);
  return entry?.grant;
}

/** Deletes the refresh token the library just issued, with its access-token records. */
async function discardIssued(adapter: DBAdapter, refreshToken: unknown): Promise<void> {
  if (typeof refreshToken !== "string") return;
  const successor = await findRefreshRow(adapter, refreshToken);
  if (!successor) return;
  const byRefresh = [{ field: "refreshId", value: successor.id }];
  await adapter.deleteMany({ model: "oauthAccessToken", where: byRefresh });
  await adapter.deleteMany({
    model: "oauthRefreshToken",
    where: [{ field: "id", value: successor.id }],
  });
}

/**
 * Whether a mark covers the code `grant`. The provider stores a code's creation in whole
 * seconds, so a mark in the code's own second is ambiguous: the person may have revoked the app
 * and connected it again within that second. A revocation deletes the client's consent, so the
 * code stands only when a consent exists again (one given after the mark).
 */
async function revokedCode(
  adapter: DBAdapter,
  marks: Connection,
  grant: RefreshRow,
): Promise<boolean> {
  const appUserId = await appUserOf(adapter, grant.userId);
  if (!appUserId) return true;
  const revokedAtMs = await lastRevokedAt(marks, appUserId, grant.clientId);
  const createdSecondMs = new Date(grant.createdAt).getTime();
  if (revokedAtMs < createdSecondMs) return false;
  if (revokedAtMs >= createdSecondMs + 1000) return true;
  const consent = await adapter.findOne({
    model: "oauthConsent",
    where: [
      { field: "userId", value: grant.userId },
      { field: "clientId", value: grant.clientId },
    ],
  });
  return consent === null;
}

async function appUserOf(adapter: DBAdapter, userId: string): Promise<string | undefined> {
  const mirror = await adapter.findOne<Record<string, unknown>>({
    model: "user",
    where: [{ field: "id", value: userId }],
  });
  const appUserId = mirror?.[APP_USER_ID_FIELD];
  return typeof appUserId === "string" ? appUserId : undefined;
}

/** Whether a mark covers `row`: written at or after it was created (to the provider's second). */
async function revokedGrant(
  adapter: DBAdapter,
  marks: Connection,
  row: RefreshRow,
): Promise<boolean> {
  const appUserId = await appUserOf(adapter, row.userId);
  if (!appUserId) return true;
  return revokedSince(marks, appUserId, row.clientId, new Date(row.createdAt).getTime());
}

export function grantMarks(marks: Connection) {
  const matcher = (ctx: { path?: string }) => ctx.path === "/oauth2/token";
  return {
    id: "terreno-grant-marks",
    hooks: {
      before: [
        {
          matcher,
          handler: createAuthMiddleware(async (ctx) => {
            const { adapter } = ctx.context;
            if (isCodeGrant(ctx.body)) {
              const grant = await findCodeGrant(adapter, ctx.body.code);
              if (!grant) return;
              if (await revokedCode(adapter, marks, grant)) throw refused();
              rememberCode(ctx.body.code, grant);
              return;
            }
            if (!isRefreshGrant(ctx.body)) return;
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
            const code = isCodeGrant(ctx.body) ? recallCode(ctx.body.code) : undefined;
            if (!code && !isRefreshGrant(ctx.body)) return;
            const issued = ctx.context.returned as Record<string, unknown> | undefined;
            if (typeof issued?.access_token !== "string") return;
            const { adapter } = ctx.context;
            if (code) {
              if (!(await revokedCode(adapter, marks, code))) return;
            } else if (isRefreshGrant(ctx.body)) {
              const used = await findRefreshRow(adapter, ctx.body.refresh_token);
              if (used && !(await revokedGrant(adapter, marks, used))) return;
            }
            await discardIssued(adapter, issued.refresh_token);
            throw refused();
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
