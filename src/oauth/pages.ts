/**
 * The sign-in, consent and problem pages: server-rendered HTML with plain forms, no script and
 * no external asset, so they work under a strict Content-Security-Policy. Every value shown is
 * escaped; text a client chose (its name, its redirect URI's host) loses its bidi controls and
 * sits in a `<bdi>`, so it cannot reorder the words around it.
 */
import { MCP_READ_SCOPE, MCP_WRITE_SCOPE } from "../core/scopes.js";
import type { ClientTrust } from "./clientTrust.js";

export const escapeHtml = (value: string): string =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

const STYLE = `
  body { font-family: system-ui, sans-serif; background: #f5f5f4; color: #1c1917; margin: 0; }
  main { max-width: 24rem; margin: 10vh auto; background: #fff; padding: 2rem; border-radius: .75rem;
    box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  h1 { font-size: 1.25rem; margin: 0 0 1rem; }
  label { display: block; margin: .75rem 0 .25rem; font-size: .9rem; }
  input[type=email], input[type=password], input[type=text] { width: 100%; box-sizing: border-box; padding: .5rem;
    border: 1px solid #d6d3d1; border-radius: .375rem; font: inherit; }
  button { margin-top: 1rem; padding: .55rem 1rem; border-radius: .375rem; border: 1px solid #1c1917;
    background: #1c1917; color: #fff; font: inherit; cursor: pointer; }
  button.secondary { background: #fff; color: #1c1917; }
  .error { color: #b91c1c; background: #fef2f2; padding: .5rem .75rem; border-radius: .375rem; }
  ul { padding-left: 1.25rem; } .muted { color: #78716c; font-size: .85rem; }
`;

/**
 * Bidi embedding, override and isolate controls and the direction marks: in a client's name
 * ("Claude \u202Eedoc") they would make the page show other text than the stored one.
 */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** Text a client chose, as shown anywhere: without bidi controls. */
export const withoutBidiControls = (value: string): string => value.replace(BIDI_CONTROLS, "");

/** A client's text, escaped and without bidi controls, for inside an isolated element. */
const clientText = (value: string): string => escapeHtml(withoutBidiControls(value));

/** An element of client text, isolated from the direction of the words around it. */
const isolated = (html: string): string => `<bdi>${html}</bdi>`;

export function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body><main>
${body}
</main></body>
</html>`;
}

export const hidden = (name: string, value: string) =>
  `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;

/** Who is asking, as the sign-in and consent pages show it. */
export interface ClientView {
  /** The name the client gave itself (or its id): shown as a claim, never as a fact. */
  name: string;
  trust: ClientTrust;
  /** Where its code goes (`returnTarget`). */
  returnTo?: ReturnTarget;
}

export interface SignInPage {
  action: string;
  oauthQuery: string;
  appName: string;
  client?: ClientView;
  email?: string;
  error?: string;
  /** Where a person without an account creates one (the sign-up page), when the app allows it. */
  signupHref?: string;
}

/** "evil.test", or "127.0.0.1:53682 (an app on this computer)", as plain text. */
function destination(target: ReturnTarget | undefined): string {
  if (!target) return "An application";
  return `${withoutBidiControls(target.label)}${target.local ? " (an app on this computer)" : ""}`;
}

/** The client's own name, and whether anything vouches for it. */
function clientLine(client: ClientView): string {
  const trust = client.trust.verified
    ? `<span id="client-trust">verified</span> by ${isolated(clientText(client.trust.host ?? ""))}`
    : `<span id="client-trust">unverified</span>: anyone can register this name`;
  const name = isolated(`<strong id="client-name">${clientText(client.name)}</strong>`);
  return `<p class="muted">It calls itself ${name} (${trust}).</p>`;
}

/** Who is asking to connect, as the sign-in and sign-up pages open. */
export function askingLines(client: ClientView | undefined): string {
  if (!client) return `<p class="muted">An application is asking to connect to your account.</p>`;
  const host = isolated(
    `<strong id="client-host">${escapeHtml(destination(client.returnTo))}</strong>`,
  );
  return `<p>${host} is asking to connect to your account.</p>
${clientLine(client)}`;
}

export function signInPage(view: SignInPage): string {
  const asking = askingLines(view.client);
  const signup = view.signupHref
    ? `<p class="muted">No account yet? <a id="signup-link" href="${escapeHtml(view.signupHref)}">Create one</a></p>`
    : "";
  return page(
    `Sign in to ${view.appName}`,
    `<h1>Sign in to ${escapeHtml(view.appName)}</h1>
${asking}
${view.error ? `<p class="error" role="alert">${escapeHtml(view.error)}</p>` : ""}
<form method="post" action="${escapeHtml(view.action)}">
${hidden("oauth_query", view.oauthQuery)}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(view.email ?? "")}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
${signup}`,
  );
}

/** What each scope lets the client do, in words a person can judge. */
const SCOPE_WORDS: Record<string, string> = {
  [MCP_READ_SCOPE]: "Read your data through the MCP tools",
  [MCP_WRITE_SCOPE]: "Create, change and delete your data through the MCP tools",
  openid: "Know who you are",
  profile: "See your name",
  email: "See your email address",
  offline_access: "Stay connected when you are away (refresh tokens)",
};

export interface ConsentPage {
  action: string;
  oauthQuery: string;
  /** The client; its `returnTo` (where the code goes) is what the heading names. */
  client: ClientView;
  scopes: string[];
  userEmail?: string;
  /** Offer "Allow read-only" (the requested scopes without mcp:write). */
  readOnlyChoice: boolean;
}

export interface ReturnTarget {
  /** The redirect URI's host and port (`127.0.0.1:53682`), or an app's scheme (`cursor://…`). */
  label: string;
  /** A loopback address: an app on the person's own computer. */
  local: boolean;
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The redirect URI as a person can judge it, or undefined when it is not a URL. */
export function returnTarget(redirectUri: string | null): ReturnTarget | undefined {
  if (!redirectUri) return undefined;
  try {
    const url = new URL(redirectUri);
    if (url.protocol === "http:" || url.protocol === "https:") {
      return { label: url.host, local: LOOPBACK_HOSTS.has(url.hostname) };
    }
    return { label: url.host ? `${url.protocol}//${url.host}` : url.protocol, local: false };
  } catch {
    return undefined;
  }
}

function returnLine(target: ReturnTarget | undefined): string {
  if (!target) return "";
  const where = isolated(`<strong id="return-to">${clientText(target.label)}</strong>`);
  const local = target.local ? " (an app on this computer)" : "";
  return `<p>You will return to ${where}${local}.</p>`;
}

export function consentPage(view: ConsentPage): string {
  const items = view.scopes
    .map(
      (scope) =>
        `<li><strong>${escapeHtml(SCOPE_WORDS[scope] ?? scope)}</strong> <span class="muted">(${escapeHtml(scope)})</span></li>`,
    )
    .join("\n");
  const readOnly = view.readOnlyChoice
    ? `<button type="submit" name="decision" value="allow-read" class="secondary">Allow read-only</button>`
    : "";
  // The heading names what a self-chosen client name cannot fake: the host that serves a
  // verified client's metadata document (CIMD), else where the code goes.
  const { trust } = view.client;
  const who = withoutBidiControls(
    trust.verified && trust.host ? trust.host : destination(view.client.returnTo),
  );
  return page(
    `${who} wants to use your account`,
    `<h1>${isolated(`<span id="consent-host">${escapeHtml(who)}</span>`)} wants to use your account</h1>
${clientLine(view.client)}
${view.userEmail ? `<p class="muted">Signed in as ${escapeHtml(view.userEmail)}</p>` : ""}
<p>It asks to:</p>
<ul id="scopes">${items}</ul>
${returnLine(view.client.returnTo)}
<form method="post" action="${escapeHtml(view.action)}">
${hidden("oauth_query", view.oauthQuery)}
<button type="submit" name="decision" value="allow">Allow</button>
${readOnly}
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`,
  );
}

export function problemPage(title: string, detail: string): string {
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1>
<p class="error" role="alert">${escapeHtml(detail)}</p>
<p class="muted">Start again from your MCP client.</p>`,
  );
}
