/**
 * Issue #24.3, connected apps: a real OAuth client connects over HTTP and is listed at
 * `GET /auth/connections` for its user only; `DELETE /auth/connections/:clientId` ends its
 * refresh token, its access token and the consent at once, and another user can neither see
 * nor revoke it.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import request from "supertest";
import { useTestDatabase } from "../helpers/database.js";
import { Cookies, signInAndConsent } from "./httpFlow.js";
import {
  CALLBACK,
  exchangeCode,
  type OAuthTestServer,
  PASSWORD,
  pkce,
  registerClient,
  startOAuthApp,
} from "./oauthApp.js";

useTestDatabase("oauth-connections");

const ACCEPT = "application/json, text/event-stream";

describe("connected apps", () => {
  let server: OAuthTestServer;
  before(async () => {
    server = await startOAuthApp();
  });
  after(() => server.close());

  const authorizeUrl = (client: string, challenge: string) =>
    `${server.url}/oauth/oauth2/authorize?${new URLSearchParams({
      response_type: "code",
      client_id: client,
      redirect_uri: CALLBACK,
      scope: "mcp:read offline_access",
      code_challenge: challenge,
      code_challenge_method: "S256",
      resource: server.mcpUrl,
    })}`;

  /** Where the server sends a browser holding `cookies` that opens the authorization URL. */
  async function firstHop(client: string, cookies: Cookies): Promise<URL> {
    const response = await fetch(authorizeUrl(client, pkce().challenge), {
      redirect: "manual",
      headers: { cookie: cookies.header },
    });
    let location = response.headers.get("location");
    if (!location && response.headers.get("content-type")?.includes("application/json")) {
      location = ((await response.json()) as { url?: string }).url ?? null;
    }
    assert.ok(location, `authorize answered ${response.status} with nowhere to go`);
    return new URL(location, server.url);
  }

  async function connect(client: string, email: string, cookies: Cookies) {
    const { verifier, challenge } = pkce();
    const landed = await signInAndConsent(authorizeUrl(client, challenge), {
      email,
      password: PASSWORD,
      cookies,
    });
    const code = landed.location ? new URL(landed.location).searchParams.get("code") : null;
    assert.ok(code, `no code: ${landed.status} ${landed.body.slice(0, 200)}`);
    const exchanged = await exchangeCode(server.url, {
      code,
      code_verifier: verifier,
      client_id: client,
      redirect_uri: CALLBACK,
      resource: server.mcpUrl,
    });
    assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
    return {
      accessToken: exchanged.body.access_token as string,
      refreshToken: exchanged.body.refresh_token as string,
    };
  }

  const signup = async (email: string) => {
    const response = await request(server.app)
      .post("/auth/signup")
      .send({ email, password: PASSWORD, name: email.split("@")[0] });
    assert.equal(response.status, 201, response.text);
    return { Authorization: `Bearer ${response.body.data.token as string}` };
  };

  const mcpStatus = async (token: string) =>
    (
      await request(server.app)
        .post("/mcp")
        .set("Authorization", `Bearer ${token}`)
        .set("Accept", ACCEPT)
        .send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })
    ).status;

  const refresh = (client: string, refreshToken: string) =>
    request(server.app)
      .post("/oauth/oauth2/token")
      .type("form")
      .send({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: client });

  test("listed for its user only; revoking ends its tokens and consent", async () => {
    const alice = await signup("alice-apps@example.com");
    const bob = await signup("bob-apps@example.com");
    const browser = new Cookies();
    const client = await registerClient(server.url);
    const tokens = await connect(client, "alice-apps@example.com", browser);
    assert.equal(await mcpStatus(tokens.accessToken), 200);
    // Consent is remembered: the signed-in browser goes straight back to the client.
    assert.equal((await firstHop(client, browser)).pathname, "/callback");

    const listed = await request(server.app).get("/auth/connections").set(alice);
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.data.length, 1);
    const [app] = listed.body.data;
    assert.equal(app.clientId, client);
    assert.equal(app.name, "HTTP test client");
    assert.equal(app.trust, "unverified");
    assert.equal(app.redirectHost, "127.0.0.1:9");
    assert.deepEqual([...app.scopes].sort(), ["mcp:read", "offline_access"]);
    assert.ok(Date.parse(app.grantedAt) <= Date.now(), app.grantedAt);
    assert.ok(Date.parse(app.lastUsedAt) >= Date.parse(app.grantedAt), app.lastUsedAt);

    // Another user sees nothing and cannot revoke it.
    const bobs = await request(server.app).get("/auth/connections").set(bob);
    assert.deepEqual(bobs.body.data, []);
    const bobRevokes = await request(server.app).delete(`/auth/connections/${client}`).set(bob);
    assert.equal(bobRevokes.status, 404, bobRevokes.text);
    assert.equal(await mcpStatus(tokens.accessToken), 200, "bob's attempt changed nothing");

    // A token cannot manage connections: only a signed-in session.
    const byToken = await request(server.app)
      .get("/auth/connections")
      .set("Authorization", `Bearer ${tokens.accessToken}`);
    assert.equal(byToken.status, 403, byToken.text);

    const revoked = await request(server.app).delete(`/auth/connections/${client}`).set(alice);
    assert.equal(revoked.status, 204, revoked.text);
    assert.equal(await mcpStatus(tokens.accessToken), 401, "the access token still works");
    const refreshed = await refresh(client, tokens.refreshToken);
    assert.notEqual(refreshed.status, 200, `the refresh token still works: ${refreshed.text}`);
    assert.equal((await firstHop(client, browser)).pathname, "/oauth/consent", "no consent asked");
    assert.deepEqual((await request(server.app).get("/auth/connections").set(alice)).body.data, []);
    const again = await request(server.app).delete(`/auth/connections/${client}`).set(alice);
    assert.equal(again.status, 404);

    // Connecting again works, with new tokens.
    const renewed = await connect(client, "alice-apps@example.com", browser);
    assert.equal(await mcpStatus(renewed.accessToken), 200);
  });

  test("both routes are in /openapi.json", async () => {
    const doc = await request(server.app).get("/openapi.json");
    assert.equal(doc.status, 200);
    assert.ok(doc.body.paths["/auth/connections"]?.get, "GET /auth/connections");
    assert.ok(doc.body.paths["/auth/connections/{clientId}"]?.delete, "DELETE …/{clientId}");
    assert.ok(doc.body.components.schemas.ConnectedApp);
  });
});
