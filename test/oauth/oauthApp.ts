/**
 * The app under test for the OAuth suites: JWT sign-up, owned Todos over REST and MCP, and the
 * built-in authorization server, listening on 127.0.0.1 (the issuer is its own URL, so the
 * port is chosen before the app is built). `authorizeOverHttp` walks the authorization code
 * flow with plain HTTP (fetch, ./httpFlow.ts), as a browser would, for the refusal tests.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { after, before } from "node:test";
import type { Express } from "express";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import {
  type OAuthServerOptions,
  type OAuthServerPlugin,
  oauthServer,
} from "../../src/oauth/index.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { PASSWORD } from "../helpers/auth.js";
import { listenOn } from "../helpers/mcpClients.js";
import { Todo, User } from "../helpers/models.js";
import { JWT_SECRET, todoOptions } from "../helpers/restApp.js";
import { type FlowStep, signInAndConsent } from "./httpFlow.js";

export { CALLBACK, type FlowStep, registerClient } from "./httpFlow.js";

export const OAUTH_SECRET = "oauth-test-secret-that-is-at-least-32-chars";
export { PASSWORD };

export interface OAuthTestServer {
  url: string;
  mcpUrl: string;
  app: Express;
  plugin: OAuthServerPlugin;
  close(): Promise<void>;
}

export async function startOAuthApp(
  options: {
    rateLimit?: boolean;
    accessTokenTtlSeconds?: number;
    secret?: string;
    previousSecrets?: string[];
    clientMetadataDocuments?: OAuthServerOptions["clientMetadataDocuments"];
    allowSignup?: boolean;
  } = {},
): Promise<OAuthTestServer> {
  const server = createServer();
  const { url, close } = await listenOn(server);
  const plugin = oauthServer({
    secret: options.secret ?? OAUTH_SECRET,
    previousSecrets: options.previousSecrets,
    issuer: url,
    userModel: User,
    appName: "Terreno test",
    accessTokenTtlSeconds: options.accessTokenTtlSeconds,
    clientMetadataDocuments: options.clientMetadataDocuments,
    allowSignup: options.allowSignup,
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
    close,
  };
}

type StartOptions = Parameters<typeof startOAuthApp>[0];

/**
 * The OAuth app for the enclosing suite: started before its tests, with an account (password
 * PASSWORD) for each of `emails`, and closed after them. Read it inside a test or hook.
 */
export function useOAuthApp(
  options: StartOptions | (() => StartOptions) = {},
  ...emails: string[]
): OAuthTestServer {
  let started: OAuthTestServer | undefined;
  before(async () => {
    // A function when the options need what an earlier hook started (a metadata host's cert).
    started = await startOAuthApp(typeof options === "function" ? options() : options);
    for (const email of emails) await signUp(started.url, email);
  });
  after(() => started?.close());
  const current = (): OAuthTestServer => {
    if (!started) throw new Error("the OAuth app is not started yet");
    return started;
  };
  return {
    get url() {
      return current().url;
    },
    get mcpUrl() {
      return current().mcpUrl;
    },
    get app() {
      return current().app;
    },
    get plugin() {
      return current().plugin;
    },
    close: async () => {
      await started?.close();
    },
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

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
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
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries({
    response_type: "code",
    client_id: options.clientId,
    ...options.params,
  })) {
    if (value !== undefined) query.set(key, value);
  }
  return signInAndConsent(`${options.base}/oauth/oauth2/authorize?${query}`, {
    email: options.email,
    password: PASSWORD,
    decision: options.decision,
  });
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
