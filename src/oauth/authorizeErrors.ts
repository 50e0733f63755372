/**
 * Errors of the authorization endpoint go back to the client only when the person has already
 * approved that client. RFC 6749 sends them to any registered redirect URI, but registration is
 * open, so anyone can register `https://evil.test/landing` and use this server's trusted origin
 * as an open redirector (RFC 9700 §4.11.2) with a request that is bound to fail (`scope=nope`).
 * Otherwise the person lands on the server's own problem page, which shows the error code's
 * fixed message, by a redirect a browser follows (302 or 303, never a Location on a 4xx). The
 * library decides every error; this only changes where it is shown.
 */
import type { BetterAuthPlugin } from "better-auth";
import { createAuthMiddleware, getSessionFromCtx, isAPIError } from "better-auth/api";
import { CLIENT_METADATA_ERROR_FIELD } from "./clientMetadataDiscovery.js";

/**
 * The code of a Client ID Metadata Document refusal (clientMetadataDiscovery.ts): it is thrown
 * while the client is looked up, so the person sees the problem page, never the JSON.
 */
function clientMetadataProblem(returned: unknown): string | undefined {
  if (!isAPIError(returned)) return undefined;
  const code = (returned.body as Record<string, unknown> | undefined)?.[
    CLIENT_METADATA_ERROR_FIELD
  ];
  return typeof code === "string" ? code : undefined;
}

/** As the library answers a redirect: JSON for fetch() (and `Accept: json`), else a 302. */
const answersWithJson = (request: Request | undefined, accept: string | null | undefined) =>
  request?.headers.get("sec-fetch-mode") === "cors" ||
  Boolean(accept?.includes("application/json"));

/** Where the library's answer sends the browser: a thrown 302, or `{redirect, url}` for fetch. */
function redirectTarget(returned: unknown): { url: string; thrown: boolean } | undefined {
  if (typeof returned !== "object" || returned === null) return undefined;
  const { statusCode, headers } = returned as { statusCode?: unknown; headers?: unknown };
  if (returned instanceof Error && statusCode === 302 && headers instanceof Headers) {
    const location = headers.get("location");
    return location ? { url: location, thrown: true } : undefined;
  }
  const { redirect, url } = returned as { redirect?: unknown; url?: unknown };
  return redirect === true && typeof url === "string" ? { url, thrown: false } : undefined;
}

const withoutQuery = (uri: string) => uri.split(/[?#]/, 1)[0];

/** The error code when `target` is an error sent to `redirectUri` (query or fragment). */
function errorSentTo(target: string, redirectUri: string): string | undefined {
  if (withoutQuery(target) !== withoutQuery(redirectUri)) return undefined;
  try {
    const url = new URL(target);
    const params = url.hash ? new URLSearchParams(url.hash.slice(1)) : url.searchParams;
    return params.get("error") ?? undefined;
  } catch {
    return undefined;
  }
}

export function authorizeErrors(problemUrl: string): BetterAuthPlugin {
  return {
    id: "terreno-authorize-errors",
    hooks: {
      after: [
        {
          matcher: (ctx) => ctx.path === "/oauth2/authorize",
          handler: createAuthMiddleware(async (ctx) => {
            const problem = clientMetadataProblem(ctx.context.returned);
            if (problem) {
              const page = `${problemUrl}?${new URLSearchParams({ error: problem })}`;
              // A whole Response: a thrown redirect or ctx.json() would keep the refusal's 400,
              // and a browser ignores Location on a 400 (a blank "HTTP ERROR 400").
              if (answersWithJson(ctx.request, ctx.headers?.get("accept"))) {
                return Response.json({ redirect: true, url: page });
              }
              return new Response(null, { status: 303, headers: { location: page } });
            }
            const target = redirectTarget(ctx.context.returned);
            const query = (ctx.query ?? {}) as Record<string, unknown>;
            const { client_id: clientId, redirect_uri: redirectUri } = query;
            if (!target || typeof redirectUri !== "string" || typeof clientId !== "string") return;
            const code = errorSentTo(target.url, redirectUri);
            if (!code) return;
            const session = await getSessionFromCtx(ctx).catch(() => null);
            const consent = session
              ? await ctx.context.adapter.findOne({
                  model: "oauthConsent",
                  where: [
                    { field: "clientId", value: clientId },
                    { field: "userId", value: session.user.id },
                  ],
                })
              : null;
            if (consent) return;
            const page = `${problemUrl}?${new URLSearchParams({ error: code })}`;
            if (target.thrown) throw ctx.redirect(page);
            return ctx.json({ redirect: true, url: page });
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
