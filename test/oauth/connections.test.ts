/**
 * Issue #24.3, connected apps: a real OAuth client connects over HTTP and is listed at
 * `GET /auth/connections` for its user only; `DELETE /auth/connections/:clientId` ends its
 * refresh token, its access token and the consent at once, and another user can neither see
 * nor revoke it.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import request from "supertest";
import { useTestDatabase } from "../helpers/database.js";
import { authorizeUrl, connectByOAuth, mcpStatusWith, refreshOAuth } from "../helpers/oauthFlow.js";
import { Cookies } from "./httpFlow.js";
import { PASSWORD, pkce, registerClient, useOAuthApp } from "./oauthApp.js";

useTestDatabase("oauth-connections");

describe("connected apps", () => {
  const server = useOAuthApp();

  /** Where the server sends a browser holding `cookies` that opens the authorization URL. */
  async function firstHop(client: string, cookies: Cookies): Promise<URL> {
    const url = authorizeUrl({
      base: server.url,
      clientId: client,
      codeChallenge: pkce().challenge,
    });
    const response = await fetch(url, { redirect: "manual", headers: { cookie: cookies.header } });
    let location = response.headers.get("location");
    if (!location && response.headers.get("content-type")?.includes("application/json")) {
      location = ((await response.json()) as { url?: string }).url ?? null;
    }
    assert.ok(location, `authorize answered ${response.status} with nowhere to go`);
    return new URL(location, server.url);
  }

  const connect = (client: string, email: string, cookies: Cookies) =>
    connectByOAuth({ base: server.url, clientId: client, email, cookies }).then((tokens) => ({
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken ?? "",
    }));

  const signup = async (email: string) => {
    const response = await request(server.app)
      .post("/auth/signup")
      .send({ email, password: PASSWORD, name: email.split("@")[0] });
    assert.equal(response.status, 201, response.text);
    return { Authorization: `Bearer ${response.body.data.token as string}` };
  };

  const mcpStatus = (token: string) => mcpStatusWith(server.url, token);
  const refresh = (client: string, refreshToken: string) =>
    refreshOAuth(server.url, client, refreshToken);

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
    assert.notEqual(
      refreshed.status,
      200,
      `the refresh token still works: ${JSON.stringify(refreshed.body)}`,
    );
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
