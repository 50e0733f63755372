/**
 * The built-in authorization server over plain HTTP: its metadata, the happy path of the
 * authorization code flow, and every refusal a client or a person can meet. Wrong audience,
 * expired token, a read scope calling a write tool, PKCE missing or `plain`, a redirect URI
 * never registered, Deny on consent, a wrong password and the login lockout. (A revoked personal
 * token is covered by test/auth/tokens.test.ts.)
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { decodeJwt } from "jose";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { clientTrust } from "../../src/oauth/clientTrust.js";
import { APP_USER_ID_CLAIM, oauthServer } from "../../src/oauth/index.js";
import { consentPage, returnTarget } from "../../src/oauth/pages.js";
import { SESSION_BRIDGE_ENDPOINT, SESSION_BRIDGE_PATH } from "../../src/oauth/sessionBridge.js";
import { DEFAULT_RATE_LIMITS } from "../../src/ops/rateLimit.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { useTestDatabase } from "../helpers/database.js";
import { connectClient } from "../helpers/mcpClients.js";
import { Todo, User } from "../helpers/models.js";
import { connectByOAuth, refreshOAuth } from "../helpers/oauthFlow.js";
import { JWT_SECRET, todoOptions } from "../helpers/restApp.js";
import {
  authorizeOverHttp,
  CALLBACK,
  OAUTH_SECRET,
  PASSWORD,
  pkce,
  registerClient,
  signUp,
  startOAuthApp,
  useOAuthApp,
} from "./oauthApp.js";

useTestDatabase("oauth_refusals");

const ACCEPT = "application/json, text/event-stream";
const EMAIL = "refusals@example.com";

describe("the built-in authorization server, over HTTP", () => {
  const server = useOAuthApp();
  let userId: string;
  let clientId: string;

  before(async () => {
    userId = await signUp(server.url, EMAIL);
    clientId = await registerClient(server.url);
  });

  /** A code for `scope` (with a state, checked), then the token exchange. */
  async function tokenFor(
    scope: string,
    { decision, client = clientId }: { decision?: "allow" | "allow-read"; client?: string } = {},
  ): Promise<string> {
    const tokens = await connectByOAuth({
      base: server.url,
      clientId: client,
      email: EMAIL,
      scope,
      decision,
      state: "s1",
    });
    return tokens.accessToken;
  }

  const mcpList = (token: string) =>
    request(server.app)
      .post("/mcp")
      .set("Authorization", `Bearer ${token}`)
      .set("Accept", ACCEPT)
      .send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });

  /** A token signed with the server's own key, with claims the test chooses. */
  async function forged(claims: Record<string, unknown>): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const { token } = await server.plugin.auth().api.signJWT({
      body: {
        payload: {
          sub: "x",
          aud: server.mcpUrl,
          scope: "mcp:read mcp:write",
          [APP_USER_ID_CLAIM]: userId,
          iat: now,
          exp: now + 600,
          ...claims,
        },
      },
    });
    return token;
  }

  test("metadata: RFC 8414 at the root, S256 only, and /mcp names this issuer", async () => {
    const metadata = await request(server.app).get("/.well-known/oauth-authorization-server");
    assert.equal(metadata.status, 200);
    assert.equal(metadata.body.issuer, server.url);
    assert.deepEqual(metadata.body.code_challenge_methods_supported, ["S256"]);
    assert.equal(metadata.body.authorization_endpoint, `${server.url}/oauth/oauth2/authorize`);
    assert.equal(metadata.body.registration_endpoint, `${server.url}/oauth/oauth2/register`);
    assert.equal(metadata.headers["access-control-allow-origin"], "*");
    // Browser-based clients (the Inspector) register and redeem codes cross-origin.
    const preflight = await request(server.app)
      .options("/oauth/oauth2/token")
      .set("Origin", "http://localhost:6274")
      .set("Access-Control-Request-Method", "POST");
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers["access-control-allow-origin"], "*");
    const oidc = await request(server.app).get("/.well-known/openid-configuration");
    assert.equal(oidc.status, 200);
    assert.equal(oidc.body.issuer, server.url);

    const resource = await request(server.app).get("/.well-known/oauth-protected-resource/mcp");
    assert.equal(resource.body.resource, server.mcpUrl);
    assert.deepEqual(resource.body.authorization_servers, [server.url]);
    const challenge = await mcpList("").set("Authorization", "");
    assert.equal(challenge.status, 401);
    assert.match(
      challenge.headers["www-authenticate"],
      /resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
  });

  test("a token from the flow works; its scope and audience are the MCP resource's", async () => {
    const token = await tokenFor("mcp:read mcp:write");
    const list = await mcpList(token);
    assert.equal(list.status, 200);
    const names = list.body.result.tools.map((tool: { name: string }) => tool.name);
    assert.ok(names.includes("todos_create"), names.join());
    const created = await request(server.app)
      .post("/todos")
      .set("Authorization", `Bearer ${token}`)
      .send({ title: "via oauth" });
    assert.equal(created.status, 201);
    assert.equal(created.body.data.ownerId.id, userId);
    const claims = decodeJwt(token);
    assert.equal(claims.aud, server.mcpUrl);
    assert.equal(claims.iss, server.url);
    // A client registered for the refresh_token grant is given offline_access (#33.15).
    assert.equal(claims.scope, "mcp:read mcp:write offline_access");
    assert.equal(claims[APP_USER_ID_CLAIM], userId);
  });

  test("a client that never sends resource still gets a token for /mcp, refreshed alike", async () => {
    const client = await registerClient(server.url);
    const exchanged = await connectByOAuth({
      base: server.url,
      clientId: client,
      email: EMAIL,
      resource: null,
    });
    const token = exchanged.accessToken;
    assert.equal(decodeJwt(token).aud, server.mcpUrl);
    assert.equal((await mcpList(token)).status, 200);
    const refreshed = await refreshOAuth(server.url, client, exchanged.refreshToken as string);
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    const refreshedToken = refreshed.body.access_token as string;
    assert.equal(decodeJwt(refreshedToken).aud, server.mcpUrl);
    assert.equal((await mcpList(refreshedToken)).status, 200);
  });

  test("wrong audience: a token for another resource is 401 with a Bearer challenge", async () => {
    const token = await forged({ aud: "http://127.0.0.1:1/other-mcp" });
    const response = await mcpList(token);
    assert.equal(response.status, 401);
    assert.match(response.headers["www-authenticate"], /error="invalid_token"/);
    assert.match(response.headers["www-authenticate"], /another resource/);
    // The same key with the right audience is accepted: the audience alone was wrong.
    assert.equal((await mcpList(await forged({}))).status, 200);
  });

  test("an expired token is 401", async () => {
    const now = Math.floor(Date.now() / 1000);
    const response = await mcpList(await forged({ iat: now - 7200, exp: now - 3600 }));
    assert.equal(response.status, 401);
    assert.match(response.headers["www-authenticate"], /expired/);
  });

  test("mcp:read: only read-only tools are listed, and a write tool answers as unknown", async () => {
    const token = await tokenFor("mcp:read");
    const client = await connectClient("v2-auto", server.url, token);
    const tools = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ["todos_list", "todos_read"]);
    await assert.rejects(client.callTool("todos_create", { title: "x" }), /Unknown tool/);
    await client.close();
    const post = await request(server.app)
      .post("/todos")
      .set("Authorization", `Bearer ${token}`)
      .send({ title: "x" });
    assert.equal(post.status, 403);
  });

  test("'Allow read-only' on consent grants mcp:read alone", async () => {
    // A client this person has not consented to yet: an earlier consent would skip the page.
    const client = await registerClient(server.url);
    const token = await tokenFor("mcp:read mcp:write", { decision: "allow-read", client });
    assert.equal(decodeJwt(token).scope, "mcp:read offline_access");
    const post = await request(server.app)
      .post("/todos")
      .set("Authorization", `Bearer ${token}`)
      .send({ title: "x" });
    assert.equal(post.status, 403);
  });

  test("PKCE missing or plain: invalid_request on the server's page (nobody signed in), no code", async () => {
    // With no session, nobody has approved the client: the error is not sent to its redirect URI
    // (test/oauth/authorizeErrors.test.ts shows an approved client getting it).
    const base = { redirect_uri: CALLBACK, scope: "mcp:read", state: "p", resource: server.mcpUrl };
    for (const params of [
      base,
      { ...base, code_challenge: "a".repeat(43), code_challenge_method: "plain" },
    ]) {
      const landed = await authorizeOverHttp({ base: server.url, clientId, email: EMAIL, params });
      assert.equal(landed.location, undefined, landed.location);
      assert.equal(landed.status, 400);
      assert.match(landed.body, /\(invalid_request\)/);
      assert.doesNotMatch(landed.body, /code=/);
    }
  });

  test("a redirect URI never registered: refused on the server's error page, no redirect to it", async () => {
    const { challenge } = pkce();
    const landed = await authorizeOverHttp({
      base: server.url,
      clientId,
      email: EMAIL,
      params: {
        redirect_uri: "https://evil.example/callback",
        scope: "mcp:read",
        code_challenge: challenge,
        code_challenge_method: "S256",
      },
    });
    assert.ok(!landed.location?.startsWith("https://evil.example"), landed.location);
    // The same page whatever NODE_ENV says (Better Auth's own error route differs in production).
    assert.equal(landed.status, 400, landed.location);
    assert.match(landed.body, /Sign-in refused/);
    assert.match(landed.body, /\(invalid_redirect\)/);
  });

  test("Deny on consent: the client gets access_denied", async () => {
    const { challenge } = pkce();
    const landed = await authorizeOverHttp({
      base: server.url,
      clientId: await registerClient(server.url), // never consented: the page is shown
      email: EMAIL,
      decision: "deny",
      params: {
        redirect_uri: CALLBACK,
        scope: "mcp:read mcp:write offline_access",
        state: "d",
        code_challenge: challenge,
        code_challenge_method: "S256",
        resource: server.mcpUrl,
      },
    });
    const location = new URL(landed.location ?? "about:blank");
    assert.equal(`${location.origin}${location.pathname}`, CALLBACK);
    assert.equal(location.searchParams.get("error"), "access_denied");
    assert.equal(location.searchParams.get("state"), "d");
  });

  test("the consent page names where the code goes, not only the name the client chose", async () => {
    // Anyone may register a client and call it "Claude Code"; the redirect URI is what counts.
    const redirect = "http://127.0.0.1:53682/callback";
    const browser = request.agent(server.app);
    const authorize = await browser.get("/oauth/oauth2/authorize").query({
      response_type: "code",
      client_id: await registerClient(server.url, redirect),
      redirect_uri: redirect,
      scope: "mcp:read",
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
      resource: server.mcpUrl,
    });
    const signedIn = await browser
      .post("/oauth/login")
      .set("Origin", server.url)
      .type("form")
      .send({
        email: EMAIL,
        password: PASSWORD,
        oauth_query: new URL(authorize.headers.location ?? "", server.url).search.slice(1),
      });
    assert.match(signedIn.headers.location ?? "", /^\/oauth\/consent\?/, signedIn.text);
    const consent = await browser.get(signedIn.headers.location ?? "");
    assert.equal(consent.status, 200);
    assert.match(
      consent.text,
      /You will return to <bdi><strong id="return-to">127\.0\.0\.1:53682<\/strong><\/bdi> \(an app on this computer\)\./,
    );
    // What is shown is escaped, like every other value on the page.
    const shown = consentPage({
      action: "/oauth/consent",
      oauthQuery: "",
      client: {
        name: "Claude Code",
        trust: clientTrust({ clientId: "x" }),
        returnTo: { label: `evil.example"><script>`, local: false },
      },
      scopes: ["mcp:read"],
      readOnlyChoice: false,
    });
    assert.match(
      shown,
      /<strong id="return-to">evil\.example&quot;&gt;&lt;script&gt;<\/strong><\/bdi>\./,
    );
    assert.deepEqual(returnTarget("cursor://anysphere.cursor-retrieval/oauth/callback"), {
      label: "cursor://anysphere.cursor-retrieval",
      local: false,
    });
  });

  test("the session bridge is server-only: HTTP cannot mint a session for any user", async () => {
    // The endpoint is there, at the path posted to below: the 404 is SERVER_ONLY, not a typo.
    const bridge = server.plugin.auth().api[SESSION_BRIDGE_ENDPOINT];
    assert.equal(typeof bridge, "function");
    assert.equal(bridge.path, SESSION_BRIDGE_PATH);
    assert.equal(bridge.options.metadata?.SERVER_ONLY, true);
    const forgedSession = await request(server.app)
      .post(`/oauth${SESSION_BRIDGE_PATH}`)
      .set("Origin", server.url)
      .send({ appUserId: userId, email: EMAIL, oauth_query: "client_id=x" });
    assert.equal(forgedSession.status, 404, forgedSession.text);
    assert.equal(forgedSession.headers["set-cookie"], undefined);
  });

  test("a tampered or expired oauth_query is a 4xx page, never a 500", async (t) => {
    const sessions = async () =>
      (await server.plugin.auth().$context).adapter.count({ model: "session" });
    const signIn = (oauthQuery: string) =>
      request(server.app)
        .post("/oauth/login")
        .set("Origin", server.url)
        .type("form")
        .send({ email: EMAIL, password: PASSWORD, oauth_query: oauthQuery });
    const sessionsBefore = await sessions();

    const bad = "client_id=x&sig=forged";
    const login = await signIn(bad);
    assert.equal(login.status, 400, login.text);
    assert.match(login.text, /Start again from your MCP client/);
    assert.equal(login.headers["set-cookie"], undefined);
    const consent = await request(server.app)
      .post("/oauth/consent")
      .set("Origin", server.url)
      .type("form")
      .send({ decision: "allow", oauth_query: bad });
    assert.equal(consent.status, 400, consent.text);
    assert.match(consent.text, /expired or was changed/);

    // A genuine link, as the provider sends the person to the sign-in page.
    const authorize = await request(server.app).get("/oauth/oauth2/authorize").query({
      response_type: "code",
      client_id: clientId,
      redirect_uri: CALLBACK,
      scope: "mcp:read",
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
      resource: server.mcpUrl,
    });
    const genuine = new URL(authorize.headers.location ?? "", server.url).search.slice(1);
    assert.match(genuine, /sig=/, authorize.text);
    // Changed to ask for more than the person was shown.
    const widened = new URLSearchParams(genuine);
    widened.set("scope", "mcp:read mcp:write");
    assert.equal((await signIn(widened.toString())).status, 400);
    // Expired: the same link eleven minutes later (the provider signs it for 600 s).
    t.mock.timers.enable({ apis: ["Date"], now: Date.now() + 11 * 60_000 });
    const late = await Promise.resolve(signIn(genuine)).finally(() => t.mock.timers.reset());
    assert.equal(late.status, 400, late.text);
    assert.match(late.text, /expired or was changed/);
    // Refused before the session bridge ran: nothing was written for a link that leads nowhere.
    assert.equal(await sessions(), sessionsBefore);
    // In time, the very same link signs in: only the clock refused it above.
    const inTime = await signIn(genuine);
    assert.equal(inTime.status, 303, inTime.text);
    assert.equal(await sessions(), sessionsBefore + 1, "the count above sees sessions");
  });

  test("a wrong password shows the sign-in page again, and a cross-site post is refused", async () => {
    const wrong = await request(server.app)
      .post("/oauth/login")
      .set("Origin", server.url)
      .type("form")
      .send({ email: EMAIL, password: "not the password", oauth_query: "client_id=x&sig=y" });
    assert.equal(wrong.status, 401);
    assert.match(wrong.text, /Invalid email or password/);
    assert.match(wrong.text, /name="oauth_query" value="client_id=x&amp;sig=y"/);
    const crossSite = await request(server.app)
      .post("/oauth/consent")
      .set("Origin", "http://evil.example")
      .type("form")
      .send({ decision: "allow", oauth_query: "x=1" });
    assert.equal(crossSite.status, 403);
  });
});

describe("the authorization server's configuration and limits", () => {
  test("sign-in honours the app's login lockout", async () => {
    const server = await startOAuthApp({ rateLimit: true });
    try {
      await signUp(server.url, "lockout@example.com");
      const attempt = (password: string) =>
        request(server.app)
          .post("/oauth/login")
          .set("Origin", server.url)
          .type("form")
          .send({ email: "lockout@example.com", password, oauth_query: "client_id=x" });
      for (let i = 0; i < 5; i++) assert.equal((await attempt("wrong password")).status, 401);
      const locked = await attempt(PASSWORD);
      assert.equal(locked.status, 429);
      assert.match(locked.text, /Too many failed sign-ins/);
    } finally {
      await server.close();
    }
  });

  test("sign-in with a device token is judged by that device alone, not the account's lock", async () => {
    const server = await startOAuthApp({ rateLimit: true });
    try {
      const email = "device-page@example.com";
      await signUp(server.url, email);
      // The device cookie of an earlier login (the app's own, or this page's: the same cookie).
      const login = await request(server.app)
        .post("/auth/login")
        .send({ email, password: PASSWORD });
      const device = String(login.headers["set-cookie"]).split(";")[0];
      assert.match(device, /^terreno_device=tdv_/);
      const attempt = (password: string, cookie?: string) => {
        const req = request(server.app).post("/oauth/login").type("form").set("Origin", server.url);
        if (cookie) req.set("Cookie", cookie);
        return req.send({ email, password, oauth_query: "client_id=x" });
      };
      for (let i = 0; i < 5; i++) assert.equal((await attempt("wrong password")).status, 401);
      assert.equal((await attempt(PASSWORD)).status, 429);
      // With the device cookie the password is checked and accepted: what stops it now is only
      // the made-up link (400), not the lock.
      const known = await attempt(PASSWORD, device);
      assert.equal(known.status, 400, known.text);
      assert.match(known.text, /expired or was changed/);
      assert.equal((await attempt(PASSWORD)).status, 429, "still locked for everyone else");
    } finally {
      await server.close();
    }
  });

  test("registration and the token endpoint spend the app's per-IP auth points, not Better Auth's", async () => {
    const server = await startOAuthApp({ rateLimit: true });
    try {
      // Better Auth's own limiter would count in process memory, in production only.
      assert.equal(server.plugin.auth().options.rateLimit?.enabled, false);
      // The whole happy path fits the default limit: sign-up, registration, sign-in and token
      // spend 4 of its points (the authorization request and consent spend none).
      const email = "limits@example.com";
      await signUp(server.url, email);
      const client = await registerClient(server.url);
      await connectByOAuth({ base: server.url, clientId: client, email, scope: "mcp:read" });

      const register = () =>
        request(server.app)
          .post("/oauth/oauth2/register")
          .send({ redirect_uris: [CALLBACK], token_endpoint_auth_method: "none" });
      let accepted = 0;
      let refused: request.Response | undefined;
      while (!refused && accepted < 100) {
        const response = await register();
        if (response.status === 429) refused = response;
        else {
          assert.equal(response.status, 201, response.text);
          accepted++;
        }
      }
      assert.equal(accepted + 4, DEFAULT_RATE_LIMITS.auth.perIp.points);
      assert.match(refused?.headers["retry-after"] ?? "", /^[1-9][0-9]*$/);
      // A browser-based client (the Inspector) can read the refusal.
      assert.equal(refused?.headers["access-control-allow-origin"], "*");
      const token = await request(server.app)
        .post("/oauth/oauth2/token")
        .type("form")
        .send({ grant_type: "refresh_token", refresh_token: "x", client_id: client });
      assert.equal(token.status, 429, token.text);
      assert.match(token.headers["retry-after"] ?? "", /^[1-9][0-9]*$/);
    } finally {
      await server.close();
    }
  });

  test("an mcp.resourceUrl other than the server's resource fails at build", () => {
    const app = new TerrenoApp({
      userModel: User,
      auth: { jwt: { secret: JWT_SECRET } },
      mcp: { resourceUrl: "https://api.example.com/mcp" },
    });
    app.register(modelRouter(Todo, todoOptions()));
    app.register(
      oauthServer({ secret: OAUTH_SECRET, issuer: "http://127.0.0.1:4000", userModel: User }),
    );
    assert.throws(() => app.build(), /differs from the authorization server's resource/);
  });
});
