/**
 * Dynamic client registration as MCP clients send it. Better Auth follows OIDC DCR: a client
 * that names no `application_type` is a "web" client, which may only redirect to https on a
 * public host. Claude Code, Cursor, VS Code and the Inspector register loopback redirect URIs
 * (`http://localhost:PORT/callback`) without an `application_type`, so every one of them would
 * be refused. This fills the type the way the MCP SDK itself now does (SEP-837, RFC 8252):
 * loopback http and private-use schemes make a "native" client. Everything else about the
 * registration stays the library's to check.
 */
import type { BetterAuthPlugin } from "better-auth";
import { createAuthMiddleware } from "better-auth/api";

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

export function registrationDefaults() {
  return {
    id: "terreno-registration-defaults",
    hooks: {
      before: [
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
