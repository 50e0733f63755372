/**
 * The OAuth authorization code flow as the OAuth suites walk it, in one place: the
 * authorization URL a client opens, connecting a registered client for a user (sign-in,
 * consent, code exchange), a refresh, and whether an access token works on /mcp.
 */
import assert from "node:assert/strict";
import { Cookies, type FlowStep, signInAndConsent } from "../oauth/httpFlow.js";
import { CALLBACK, exchangeCode, PASSWORD, pkce } from "../oauth/oauthApp.js";

const ACCEPT = "application/json, text/event-stream";

export interface AuthorizeUrlOptions {
  /** The server's base URL (its issuer). */
  base: string;
  clientId: string;
  codeChallenge: string;
  /** Default `mcp:read offline_access`. */
  scope?: string;
  redirectUri?: string;
  /** The MCP resource; default `${base}/mcp`; null sends none (as a pre-RFC 8707 client). */
  resource?: string | null;
  /** Sent as `state`; the client checks it comes back. */
  state?: string;
}

/** The authorization request a client sends the person's browser to. */
export function authorizeUrl(options: AuthorizeUrlOptions): string {
  const query = new URLSearchParams({
    response_type: "code",
    client_id: options.clientId,
    redirect_uri: options.redirectUri ?? CALLBACK,
    scope: options.scope ?? "mcp:read offline_access",
    code_challenge: options.codeChallenge,
    code_challenge_method: "S256",
    ...(options.resource === null ? {} : { resource: options.resource ?? `${options.base}/mcp` }),
    ...(options.state ? { state: options.state } : {}),
  });
  return `${options.base}/oauth/oauth2/authorize?${query}`;
}

/**
 * Opens `url` (an authorization request) as a fresh browser, without following: the status and
 * where the browser is sent, resolved against `url`. Better Auth answers a fetch with the
 * redirect as JSON `{url}`; a navigating browser gets the 302.
 */
export async function authorizeRedirect(
  url: string,
): Promise<{ status: number; location?: URL; body: string }> {
  const response = await fetch(url, { redirect: "manual" });
  const body = await response.text();
  const location =
    response.headers.get("location") ??
    (response.headers.get("content-type")?.includes("json")
      ? (JSON.parse(body) as { url?: string }).url
      : undefined);
  return { status: response.status, location: location ? new URL(location, url) : undefined, body };
}

export interface OAuthTokens {
  accessToken: string;
  /** Undefined when the server gave none. */
  refreshToken?: string;
  /** The token endpoint's whole answer. */
  body: Record<string, unknown>;
}

export interface ConnectOptions {
  base: string;
  clientId: string;
  email: string;
  /** Default the suites' PASSWORD. */
  password?: string;
  scope?: string;
  /** The browser, kept across flows (a fresh one by default). */
  cookies?: Cookies;
  decision?: "allow" | "allow-read" | "deny";
  /** Sent as `state` and checked on the way back. */
  state?: string;
  /**
   * The MCP resource, sent with the request and the exchange; default `${base}/mcp`; null sends
   * none (as a pre-RFC 8707 client).
   */
  resource?: string | null;
}

export interface Authorized {
  /** Where the browser stopped: the redirect to the client, or a page of the server's. */
  landed: FlowStep;
  /** The PKCE verifier that goes with the request's challenge. */
  verifier: string;
  /** The code, when the browser was sent back to CALLBACK with one. */
  code?: string;
}

/**
 * The authorization request `connectByOAuth` makes, with sign-in and consent when asked, in the
 * browser `cookies`; it stops before the exchange, whatever the answer.
 */
export async function authorizeInBrowser(options: ConnectOptions): Promise<Authorized> {
  const { verifier, challenge } = pkce();
  const url = authorizeUrl({
    base: options.base,
    clientId: options.clientId,
    codeChallenge: challenge,
    scope: options.scope,
    state: options.state,
    resource: options.resource,
  });
  const landed = await signInAndConsent(url, {
    email: options.email,
    password: options.password ?? PASSWORD,
    cookies: options.cookies ?? new Cookies(),
    decision: options.decision,
  });
  const back = landed.location ? new URL(landed.location) : undefined;
  const code =
    back && `${back.origin}${back.pathname}` === CALLBACK
      ? (back.searchParams.get("code") ?? undefined)
      : undefined;
  return { landed, verifier, code };
}

export interface RedeemOptions {
  base: string;
  clientId: string;
  /** The PKCE verifier of the authorization request. */
  verifier: string;
  /** Checked against the `state` that came back. */
  state?: string;
  /** As in ConnectOptions: default `${base}/mcp`, null sends none. */
  resource?: string | null;
}

/**
 * The client's side of the redirect `landed`: it must come back to CALLBACK with a code (and
 * `state`, when one was sent), which is exchanged for tokens. Fails the test otherwise.
 */
export async function redeemRedirect(
  landed: FlowStep,
  options: RedeemOptions,
): Promise<OAuthTokens> {
  const back = new URL(landed.location ?? "about:blank");
  assert.equal(`${back.origin}${back.pathname}`, CALLBACK, `${landed.status} ${landed.body}`);
  const code = back.searchParams.get("code");
  assert.ok(code, `no code: ${landed.location}`);
  if (options.state) assert.equal(back.searchParams.get("state"), options.state);
  const exchanged = await exchangeCode(options.base, {
    code,
    code_verifier: options.verifier,
    client_id: options.clientId,
    redirect_uri: CALLBACK,
    ...(options.resource === null ? {} : { resource: options.resource ?? `${options.base}/mcp` }),
  });
  assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
  return tokensOf(exchanged.body);
}

/**
 * Connects `clientId` for the person `email` as a browser and a client would: authorization
 * request, sign-in and consent when asked, then the code exchange. Fails the test when no code
 * or no token comes back.
 */
export async function connectByOAuth(options: ConnectOptions): Promise<OAuthTokens> {
  const { landed, verifier } = await authorizeInBrowser(options);
  return redeemRedirect(landed, { ...options, verifier });
}

function tokensOf(body: Record<string, unknown>): OAuthTokens {
  return {
    accessToken: body.access_token as string,
    refreshToken: typeof body.refresh_token === "string" ? body.refresh_token : undefined,
    body,
  };
}

/** A refresh grant: the status, and the tokens when it was a 200. */
export async function refreshOAuth(
  base: string,
  clientId: string,
  refreshToken: string,
): Promise<{ status: number; tokens?: OAuthTokens; body: Record<string, unknown> }> {
  const response = await fetch(`${base}/oauth/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      client_id: clientId,
    }).toString(),
  });
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  return {
    status: response.status,
    body,
    ...(response.status === 200 ? { tokens: tokensOf(body) } : {}),
  };
}

/** The status `tools/list` on /mcp answers with `accessToken`. */
export async function mcpStatusWith(base: string, accessToken: string): Promise<number> {
  const response = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${accessToken}`,
      accept: ACCEPT,
      "content-type": "application/json",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
  await response.body?.cancel();
  return response.status;
}
