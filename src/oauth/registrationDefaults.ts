/**
 * Dynamic client registration as MCP clients send it. Better Auth follows OIDC DCR: a client
 * that names no `application_type` is a "web" client, which may only redirect to https on a
 * public host. Claude Code, Cursor, VS Code and the Inspector register loopback redirect URIs
 * (`http://localhost:PORT/callback`) without an `application_type`, so every one of them would
 * be refused. This fills the type the way the MCP SDK itself now does (SEP-837, RFC 8252):
 * loopback http and private-use schemes make a "native" client. Everything else about the
 * registration stays the library's to check.
 *
 * Scopes: the library stores every scope the server offers on each registered client, whatever
 * it asked for (a "capability set"), so a client that asked for `mcp:read` also held `openid`.
 * A client that names its scopes gets those only, plus `offline_access` when it registered for
 * the `refresh_token` grant: that scope is how this server (Better Auth) names the grant.
 *
 * Refresh tokens: Better Auth issues one only when the request carries `offline_access` (the
 * OIDC convention). OAuth 2.1 leaves it to the server and the client's registered grant types,
 * and MCP's guidance (SEP-2207) says the same; `@ai-sdk/mcp` asks for `mcp:read mcp:write`
 * alone and had to sign in again every hour. Refresh tokens for public clients rotate here
 * (and are bound to the client), so a client registered for the `refresh_token` grant gets one
 * without asking: its authorization request (with PKCE, which `offline_access` requires) gets
 * `offline_access` added, and the consent page says so ("Stay connected when you are away").
 */
import type { BetterAuthPlugin, DBAdapter } from "better-auth";
import { createAuthMiddleware } from "better-auth/api";

const OFFLINE_ACCESS = "offline_access";
const REFRESH_GRANT = "refresh_token";

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

function isNativeRedirect(uri: unknown): boolean {
  if (typeof uri !== "string") return false;
  try {
    const url = new URL(uri);
    if (url.protocol === "http:") return LOOPBACK_HOSTS.has(url.hostname);
    return url.protocol !== "https:";
  } catch {
    return false;
  }
}

/** The SEP-837 default: native when every redirect URI is a loopback or private-use one. */
function defaultApplicationType(body: unknown): "native" | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const { application_type: type, redirect_uris: uris } = body as Record<string, unknown>;
  if (type !== undefined || !Array.isArray(uris) || uris.length === 0) return undefined;
  return uris.every(isNativeRedirect) ? "native" : undefined;
}

const words = (value: unknown): string[] =>
  typeof value === "string" ? value.split(" ").filter(Boolean) : [];

/**
 * The scopes a registration asked for, plus `offline_access` for a client of the refresh_token
 * grant when the server offers it; undefined when it named none (the library's default stands).
 */
function scopesAskedFor(body: unknown, offered: string[]): string[] | undefined {
  const fields = (body ?? {}) as Record<string, unknown>;
  const asked = words(fields.scope);
  if (asked.length === 0) return undefined;
  const grants = Array.isArray(fields.grant_types) ? fields.grant_types : [];
  const refresh = grants.includes(REFRESH_GRANT) && offered.includes(OFFLINE_ACCESS);
  return [...new Set([...asked, ...(refresh ? [OFFLINE_ACCESS] : [])])];
}

interface StoredClient {
  scopes?: string[] | null;
  grantTypes?: string[] | null;
}

/** The authorization request's scope with `offline_access` added, when the client gets one. */
async function withOfflineAccess(
  adapter: DBAdapter,
  params: Record<string, unknown>,
): Promise<string | undefined> {
  const { client_id: clientId, scope, code_challenge: challenge } = params;
  const asked = words(scope);
  // No scope: the library asks for the client's whole set, offline_access included.
  if (typeof clientId !== "string" || asked.length === 0 || asked.includes(OFFLINE_ACCESS)) {
    return undefined;
  }
  if (typeof challenge !== "string" || !challenge) return undefined;
  const client = await adapter.findOne<StoredClient>({
    model: "oauthClient",
    where: [{ field: "clientId", value: clientId }],
  });
  const registeredForRefresh = client?.grantTypes?.includes(REFRESH_GRANT) ?? false;
  if (!registeredForRefresh || !client?.scopes?.includes(OFFLINE_ACCESS)) return undefined;
  return [...asked, OFFLINE_ACCESS].join(" ");
}

export function registrationDefaults() {
  return {
    id: "terreno-registration-defaults",
    hooks: {
      after: [
        {
          matcher: (ctx) => ctx.path === "/oauth2/register",
          handler: createAuthMiddleware(async (ctx) => {
            const registered = ctx.context.returned as Record<string, unknown> | undefined;
            const clientId = registered?.client_id;
            if (typeof clientId !== "string") return;
            const granted = scopesAskedFor(ctx.body, words(registered?.scope));
            if (!granted) return;
            await ctx.context.adapter.update({
              model: "oauthClient",
              where: [{ field: "clientId", value: clientId }],
              update: { scopes: granted },
            });
            return ctx.json({ ...registered, scope: granted.join(" ") });
          }),
        },
      ],
      before: [
        {
          matcher: (ctx) => ctx.path === "/oauth2/authorize",
          handler: createAuthMiddleware(async (ctx) => {
            const fromBody = ctx.method === "POST";
            const params = ((fromBody ? ctx.body : ctx.query) ?? {}) as Record<string, unknown>;
            const scope = await withOfflineAccess(ctx.context.adapter, params);
            if (!scope) return;
            const changed = { ...params, scope };
            return { context: fromBody ? { body: changed } : { query: changed } };
          }),
        },
        {
          matcher: (ctx) => ctx.path === "/oauth2/register",
          handler: createAuthMiddleware(async (ctx) => {
            const applicationType = defaultApplicationType(ctx.body);
            if (!applicationType) return;
            const body = {
              ...(ctx.body as Record<string, unknown>),
              application_type: applicationType,
            };
            return { context: { body } };
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
