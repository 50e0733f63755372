/**
 * Issue #24.2: a password change ends every grant the old password stood behind. Each grant is
 * shown working first, then dead after `POST /auth/password`, by the very request that used
 * to work: the OAuth access and refresh tokens, the OAuth browser session (a new client
 * authorized with no password), a personal access token, and the app's own refresh token.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import request from "supertest";
import { useTestDatabase } from "../helpers/database.js";
import {
  authorizeInBrowser,
  connectByOAuth,
  mcpStatusWith,
  refreshOAuth,
} from "../helpers/oauthFlow.js";
import { Cookies } from "./httpFlow.js";
import { PASSWORD, registerClient, useOAuthApp } from "./oauthApp.js";

useTestDatabase("oauth-password-change");

const EMAIL = "password-change@example.com";

describe("a password change ends every grant", () => {
  const server = useOAuthApp();

  /** The code flow in the browser `cookies`: the code, or undefined when refused. */
  const authorize = async (client: string, cookies: Cookies, password: string) =>
    authorizeInBrowser({ base: server.url, clientId: client, email: EMAIL, password, cookies });
  const mcpStatus = (token: string) => mcpStatusWith(server.url, token);
  const refresh = (client: string, refreshToken: string) =>
    refreshOAuth(server.url, client, refreshToken);

  test("OAuth refresh token, OAuth session, PAT and app refresh token all stop working", async () => {
    const signup = await request(server.app)
      .post("/auth/signup")
      .send({ email: EMAIL, password: PASSWORD, name: "Pat" });
    assert.equal(signup.status, 201, signup.text);
    const appToken = signup.body.data.token as string;
    const appRefresh = signup.body.data.refreshToken as string;
    const auth = { Authorization: `Bearer ${appToken}` };

    const pat = await request(server.app)
      .post("/auth/tokens")
      .set(auth)
      .send({ name: "ci", scope: "read" });
    assert.equal(pat.status, 201, pat.text);
    const patToken = pat.body.data.token as string;
    assert.equal(
      (await request(server.app).get("/auth/me").set("Authorization", `Bearer ${patToken}`)).status,
      200,
    );

    // An MCP client connected by OAuth, in a browser that stays signed in.
    const browser = new Cookies();
    const first = await registerClient(server.url);
    const exchanged = await connectByOAuth({
      base: server.url,
      clientId: first,
      email: EMAIL,
      cookies: browser,
    });
    const oauthRefresh = exchanged.refreshToken;
    assert.ok(oauthRefresh, "offline_access gives a refresh token");
    assert.equal(await mcpStatus(exchanged.accessToken), 200);
    // Before the change, each grant works: a refresh mints a token, and the signed-in
    // browser authorizes another client without the password (a wrong one is never asked).
    const before = await refresh(first, oauthRefresh);
    assert.equal(before.status, 200, JSON.stringify(before.body));
    const second = await registerClient(server.url);
    assert.ok((await authorize(second, browser, "not the password")).code, "the session works");

    const changed = await request(server.app)
      .post("/auth/password")
      .set(auth)
      .send({ currentPassword: PASSWORD, newPassword: "a brand new secret" });
    assert.equal(changed.status, 200, changed.text);

    // Issue #33.7: the OAuth access tokens die at once, as on revoking the app.
    for (const token of [exchanged.accessToken, before.body.access_token]) {
      assert.equal(await mcpStatus(token as string), 401, "the OAuth access token still works");
    }
    const refreshed = await refresh(first, before.body.refresh_token as string);
    assert.notEqual(
      refreshed.status,
      200,
      `the OAuth refresh token still works: ${JSON.stringify(refreshed.body)}`,
    );
    const third = await registerClient(server.url);
    const afterChange = await authorize(third, browser, "not the password");
    assert.equal(afterChange.code, undefined, "the old browser session authorized a new client");
    const patAfter = await request(server.app)
      .get("/auth/me")
      .set("Authorization", `Bearer ${patToken}`);
    assert.equal(patAfter.status, 401, "the personal access token still works");
    const appAfter = await request(server.app)
      .post("/auth/refresh_token")
      .send({ refreshToken: appRefresh });
    assert.equal(appAfter.status, 401, "the app refresh token still works");
  });
});
