/**
 * The app under test for the OAuth suites: JWT sign-up, owned Todos over REST and MCP, and the
 * built-in authorization server, listening on 127.0.0.1 (the issuer is its own URL, so the
 * port is chosen before the app is built). `authorizeOverHttp` walks the authorization code
 * flow with plain HTTP (fetch), as a browser would, for the refusal tests.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { type OAuthServerPlugin, oauthServer } from "../../src/oauth/index.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { Todo, User } from "../helpers/models.js";
import { JWT_SECRET, todoOptions } from "../helpers/restApp.js";

export const OAUTH_SECRET = "oauth-test-secret-that-is-at-least-32-chars";
export const PASSWORD = "correct horse battery";
export const CALLBACK = "http://127.0.0.1:9/callback";

export interface OAuthTestServer {
  url: string;
  mcpUrl: string;
  app: Express;
  plugin: OAuthServerPlugin;
  close(): Promise<void>;
}

export async function startOAuthApp(
  options: { rateLimit?: boolean; accessTokenTtlSeconds?: number } = {},
): Promise<OAuthTestServer> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const plugin = oauthServer({
    secret: OAUTH_SECRET,
    issuer: url,
    userModel: User,
    appName: "Terreno test",
    accessTokenTtlSeconds: options.accessTokenTtlSeconds,
  });
  const terreno = new TerrenoApp({
    userModel: User,
    auth: { jwt: { secret: JWT_SECRET } },
    ...(options.rateLimit ? { rateLimit: {} } : {}),
  });
  terreno.register(modelRouter(Todo, todoOptions()));
  terreno.register(plugin);
  const app = terreno.build();
  server.on("request", app);
  return {
    url,
    mcpUrl: `${url}/mcp`,
    app,
    plugin,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function signUp(base: string, email: string): Promise<string> {
  const response = await fetch(`${base}/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: PASSWORD, name: "OAuth Tester" }),
  });
  if (response.status !== 201) throw new Error(`signup: ${response.status}`);
  const body = (await response.json()) as { data: { userId?: string; user?: { id: string } } };
  return body.data.userId ?? body.data.user?.id ?? "";
}

/** Registers a public client the way MCP clients do (RFC 7591, no authentication). */
export async function registerClient(base: string, redirectUri = CALLBACK): Promise<string> {
  const response = await fetch(`${base}/oauth/oauth2/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "HTTP test client",
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    }),
  });
  const body = (await response.json()) as { client_id?: string };
  if (response.status !== 201 && response.status !== 200) {
    throw new Error(`register: ${response.status} ${JSON.stringify(body)}`);
  }
  return body.client_id as string;
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** A cookie jar of one: the authorization server's session cookie. */
class Cookies {
  private readonly jar = new Map<string, string>();
  take(response: Response): void {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const at = pair.indexOf("=");
      this.jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
  }
  get header(): string {
    return [...this.jar].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

export interface FlowStep {
  status: number;
  location?: string;
  body: string;
}

/** GET or POST without following redirects, carrying the session cookie. */
async function step(
  cookies: Cookies,
  url: string,
  form?: Record<string, string>,
): Promise<FlowStep> {
  const response = await fetch(url, {
    method: form ? "POST" : "GET",
    redirect: "manual",
    headers: {
      cookie: cookies.header,
      ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
    },
    ...(form ? { body: new URLSearchParams(form).toString() } : {}),
  });
  cookies.take(response);
  const body = await response.text();
  // Better Auth answers a fetch (as undici's `sec-fetch-mode: cors` marks it) with the
  // redirect as JSON rather than a 302; a browser navigating gets the 302.
  let location = response.headers.get("location") ?? undefined;
  if (!location && response.headers.get("content-type")?.includes("application/json")) {
    const json = JSON.parse(body) as { redirect?: boolean; url?: string };
    if (json.redirect === true && typeof json.url === "string") location = json.url;
  }
  return {
    status: response.status,
    location: location ? new URL(location, url).href : undefined,
    body,
  };
}

export interface AuthorizeOptions {
  base: string;
  clientId: string;
  email: string;
  params: Record<string, string | undefined>;
  /** The consent page's button. Default "allow". */
  decision?: "allow" | "allow-read" | "deny";
}

/**
 * The authorization request, then (when the server sends the person there) sign-in and consent.
 * Returns the first step that leaves the server's own pages: the redirect to the client, or a
 * refusal shown by the server.
 */
export async function authorizeOverHttp(options: AuthorizeOptions): Promise<FlowStep> {
  const cookies = new Cookies();
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries({
    response_type: "code",
    client_id: options.clientId,
    ...options.params,
  })) {
    if (value !== undefined) query.set(key, value);
  }
  let current = await step(cookies, `${options.base}/oauth/oauth2/authorize?${query}`);
  for (let hops = 0; hops < 6 && current.location?.startsWith(options.base); hops++) {
    const next = new URL(current.location);
    if (next.pathname === "/oauth/login") {
      current = await step(cookies, next.href);
      current = await step(cookies, `${options.base}/oauth/login`, {
        email: options.email,
        password: PASSWORD,
        oauth_query: next.search.slice(1),
      });
    } else if (next.pathname === "/oauth/consent") {
      current = await step(cookies, next.href);
      if (current.status !== 200) return current;
      current = await step(cookies, `${options.base}/oauth/consent`, {
        decision: options.decision ?? "allow",
        oauth_query: next.search.slice(1),
      });
    } else {
      return step(cookies, next.href);
    }
  }
  return current;
}

export async function exchangeCode(
  base: string,
  fields: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${base}/oauth/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "authorization_code", ...fields }).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
