/**
 * The MCP resource as the default `resource` of an authorization request. Without one the
 * provider issues a token with no audience (an opaque one), which /mcp, checking `aud`, can
 * never accept: a client that omits the parameter would sign in, fail, and sign in again.
 * RFC 8707 §2 lets the server use a default resource instead, and this server protects one.
 *
 * Added at `/oauth2/authorize` only: the provider carries the request's parameters through the
 * signed sign-in and consent links into the authorization code, and its token endpoint falls back
 * to the code's resource when the token request names none. A `resource` the client does send is
 * left to the provider to check.
 */
import type { BetterAuthPlugin } from "better-auth";
import { createAuthMiddleware } from "better-auth/api";

const hasResource = (params: unknown): boolean =>
  typeof params === "object" &&
  params !== null &&
  (params as { resource?: unknown }).resource !== undefined;

export function defaultResource(resource: string) {
  return {
    id: "terreno-default-resource",
    hooks: {
      before: [
        {
          matcher: (ctx) => ctx.path === "/oauth2/authorize",
          handler: createAuthMiddleware(async (ctx) => {
            // The provider reads a POSTed authorization request from the body, a GET from the query.
            if (ctx.method === "POST") {
              if (hasResource(ctx.body)) return;
              return { context: { body: { ...(ctx.body as Record<string, unknown>), resource } } };
            }
            if (hasResource(ctx.query)) return;
            return { context: { query: { ...ctx.query, resource } } };
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
