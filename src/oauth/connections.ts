/**
 * Connected apps: the OAuth clients one app user has granted, read from the provider's own
 * tables (consents and refresh tokens, through Better Auth's adapter), and their revocation,
 * which ends the client's refresh tokens, access tokens and consent for that user at once.
 */
import type { Connection } from "mongoose";
import type { OAuthInstance } from "./authInstance.js";
import { clientTrust } from "./clientTrust.js";
import { connectionMarksOf, markRevoked } from "./connectionMarks.js";
import { returnTarget, withoutBidiControls } from "./pages.js";
import { type Context, mirrorUserId } from "./userGrants.js";

/** One connected app, as `GET /auth/connections` lists it. */
export interface ConnectedApp {
  clientId: string;
  /** The name the client gave itself (or its id): a claim, see `trust`. */
  name: string;
  trust: "verified" | "unverified";
  /** Where its codes go: the first redirect URI's host (or app scheme). */
  redirectHost: string | null;
  scopes: string[];
  grantedAt: string | null;
  lastUsedAt: string | null;
}

interface Grant {
  clientId: string;
  scopes?: string[] | string | null;
  createdAt?: Date | string | null;
  expiresAt?: Date | string | null;
  revoked?: Date | string | null;
}

interface StoredClient {
  clientId: string;
  clientDiscoveryId?: string | null;
  name?: string | null;
  redirectUris?: string[] | string | null;
}

/** The provider's records of a user's grants, one kind per model. */
const CONSENTS = "oauthConsent";
const REFRESH_TOKENS = "oauthRefreshToken";
const ACCESS_TOKENS = "oauthAccessToken";

const list = (value: string[] | string | null | undefined): string[] =>
  Array.isArray(value) ? value : typeof value === "string" && value ? value.split(/[ ,]/) : [];
const time = (value: Date | string | null | undefined): number | undefined =>
  value ? new Date(value).getTime() : undefined;
const nullable = (text: string | undefined) =>
  text === undefined ? null : withoutBidiControls(text);
const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
const known = (values: Array<number | undefined>) =>
  values.filter((value): value is number => value !== undefined);
const latest = (...values: Array<number | undefined>) =>
  known(values).length > 0 ? Math.max(...known(values)) : undefined;
const earliest = (...values: Array<number | undefined>) =>
  known(values).length > 0 ? Math.min(...known(values)) : undefined;

/** Live refresh tokens only: a revoked or expired one grants nothing. */
function live(token: Grant, now: number): boolean {
  return !token.revoked && (time(token.expiresAt) ?? Number.POSITIVE_INFINITY) > now;
}

async function grantsOf(ctx: Context, userId: string, clientId?: string) {
  const where = [
    { field: "userId", value: userId },
    ...(clientId ? [{ field: "clientId", value: clientId }] : []),
  ];
  const now = Date.now();
  const [consents, refreshTokens] = await Promise.all([
    ctx.adapter.findMany<Grant>({ model: CONSENTS, where }),
    ctx.adapter.findMany<Grant>({ model: REFRESH_TOKENS, where }),
  ]);
  return { consents, refreshTokens: refreshTokens.filter((token) => live(token, now)) };
}

/** The apps `appUserId` has granted, most recently granted first. */
export async function listConnections(
  auth: OAuthInstance,
  connection: Connection,
  appUserId: string,
): Promise<ConnectedApp[]> {
  const ctx = await auth.$context;
  const userId = await mirrorUserId(ctx, appUserId);
  if (!userId) return [];
  const { consents, refreshTokens } = await grantsOf(ctx, userId);
  const marks = await connectionMarksOf(connection, appUserId);
  const clientIds = [...new Set([...consents, ...refreshTokens].map((grant) => grant.clientId))];
  const apps: ConnectedApp[] = [];
  for (const clientId of clientIds) {
    const client = await ctx.adapter.findOne<StoredClient>({
      model: "oauthClient",
      where: [{ field: "clientId", value: clientId }],
    });
    if (!client) continue;
    const consent = consents.find((grant) => grant.clientId === clientId);
    const tokens = refreshTokens.filter((grant) => grant.clientId === clientId);
    const tokenTimes = tokens.map((token) => time(token.createdAt));
    const scopes = consent
      ? list(consent.scopes)
      : [...new Set(tokens.flatMap((token) => list(token.scopes)))];
    apps.push({
      clientId,
      // Client-chosen text without bidi controls, which would reorder whatever shows it.
      name: withoutBidiControls(client.name || clientId),
      trust: clientTrust(client).label,
      redirectHost: nullable(returnTarget(list(client.redirectUris)[0] ?? null)?.label),
      scopes,
      grantedAt: iso(time(consent?.createdAt) ?? earliest(...tokenTimes)),
      lastUsedAt: iso(latest(time(marks.get(clientId)?.lastUsedAt), ...tokenTimes)),
    });
  }
  return apps.sort((a, b) => (b.grantedAt ?? "").localeCompare(a.grantedAt ?? ""));
}

/**
 * Ends `clientId`'s grant for `appUserId`: its consent (the next authorization asks again), its
 * refresh tokens, its stored access tokens, and (by a mark the resource side checks) the access
 * JWTs it already holds. False when the user has granted that client nothing.
 */
export async function revokeConnection(
  auth: OAuthInstance,
  connection: Connection,
  appUserId: string,
  clientId: string,
): Promise<boolean> {
  const ctx = await auth.$context;
  const userId = await mirrorUserId(ctx, appUserId);
  if (!userId) return false;
  const { consents, refreshTokens } = await grantsOf(ctx, userId, clientId);
  if (consents.length === 0 && refreshTokens.length === 0) return false;
  // The mark first: from here on, no token of this client works for this user.
  await markRevoked(connection, appUserId, clientId);
  const where = [
    { field: "userId", value: userId },
    { field: "clientId", value: clientId },
  ];
  for (const model of [REFRESH_TOKENS, ACCESS_TOKENS, CONSENTS]) {
    await ctx.adapter.deleteMany({ model, where });
  }
  // Again, now the tokens are gone: the first mark carries the time its write was sent, and a
  // refresh that ran while it was on its way was granted an access token issued after that time.
  // Any such refresh finished before the delete above, so this later mark refuses its token.
  await markRevoked(connection, appUserId, clientId);
  return true;
}
