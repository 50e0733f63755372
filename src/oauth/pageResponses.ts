/**
 * How the sign-in and consent pages answer: their headers, the request the library sees on
 * their behalf, and the library's answers (a next step, or a refusal) turned into a redirect or
 * a problem page.
 */
import type { Request, Response } from "express";
import { problemPage } from "./pages.js";
import { problemMessage } from "./problemMessages.js";

/** A refusal as shown: the code's fixed message, never the library's (request-echoing) text. */
function refusalPage(code: unknown): string {
  const { code: shown, message } = problemMessage(code);
  return problemPage("Sign-in failed", `${message}${shown ? ` (${shown})` : ""}`);
}

/** Where a form may send the browser: here, and (after a redirect) the client's redirect URI. */
function contentSecurityPolicy(oauthQuery: string): string {
  let target = "";
  try {
    const redirect = new URL(new URLSearchParams(oauthQuery).get("redirect_uri") ?? "");
    target = redirect.protocol.startsWith("http") ? redirect.origin : redirect.protocol;
  } catch {
    // No valid redirect URI: forms may only post here.
  }
  const formAction = ["'self'", target].filter(Boolean).join(" ");
  return `default-src 'none'; style-src 'unsafe-inline'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`;
}

export function sendPage(res: Response, status: number, html: string, oauthQuery = ""): void {
  res.setHeader("Content-Security-Policy", contentSecurityPolicy(oauthQuery));
  // helmet's `no-referrer` makes the browser post the forms with `Origin: null`; the
  // same-origin check needs the real origin, and nothing leaks to other sites either way.
  res.setHeader("Referrer-Policy", "same-origin");
  res.status(status).type("html").send(html);
}

/** The request the library sees: this one's cookies, asking for JSON rather than a redirect. */
export function libraryRequest(
  req: Request,
  issuer: string,
): { request: globalThis.Request; headers: Headers } {
  const headers = new Headers({ accept: "application/json" });
  if (req.headers.cookie) headers.set("cookie", req.headers.cookie);
  const userAgent = req.headers["user-agent"];
  if (userAgent) headers.set("user-agent", userAgent);
  return {
    headers,
    request: new globalThis.Request(new URL(req.originalUrl, issuer), { method: "POST", headers }),
  };
}

/** Passes on the library's cookies, then follows its `{url}` / `{redirect_uri}` with a 303. */
async function forward(response: globalThis.Response, res: Response): Promise<void> {
  for (const cookie of response.headers.getSetCookie()) res.append("Set-Cookie", cookie);
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  const next = body.url ?? body.redirect_uri;
  if (response.ok && typeof next === "string") {
    res.redirect(303, next);
    return;
  }
  sendPage(res, Math.max(response.status, 400), refusalPage(body.error));
}

/** A sign-in link whose signature fails: expired, or changed on its way. */
export function sendExpiredLink(res: Response): void {
  const detail = "This sign-in link has expired or was changed.";
  sendPage(res, 400, problemPage("Sign-in link expired", detail));
}

/**
 * A refusal Better Auth throws (its APIError, matched by shape: importing the class costs startup
 * time, as in src/auth/betterAuthProvider.ts). It throws them even with `asResponse: true`.
 */
function libraryRefusal(error: unknown): { status: number; body: Record<string, unknown> } | null {
  if (!(error instanceof Error) || error.name !== "APIError") return null;
  const { statusCode, body } = error as { statusCode?: unknown; body?: unknown };
  if (typeof statusCode !== "number" || statusCode < 400 || statusCode >= 500) return null;
  return { status: statusCode, body: typeof body === "object" && body ? { ...body } : {} };
}

/**
 * Calls a library endpoint on a page's behalf and forwards its answer; a refusal becomes a
 * problem page. The provider signs the `oauth_query` it sends to the pages and lets it expire
 * after 600 s; its before-hook checks both ahead of any endpoint given one (the session bridge
 * too, so a stale or changed link writes no session) and throws `invalid_signature`.
 */
export async function callLibrary(
  res: Response,
  call: () => Promise<globalThis.Response>,
): Promise<void> {
  let response: globalThis.Response;
  try {
    response = await call();
  } catch (error) {
    const refusal = libraryRefusal(error);
    if (!refusal) throw error;
    if (refusal.body.error === "invalid_signature") {
      sendExpiredLink(res);
      return;
    }
    sendPage(res, refusal.status, refusalPage(refusal.body.error));
    return;
  }
  await forward(response, res);
}
