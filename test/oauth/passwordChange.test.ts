/**
 * Issue #24.2: a password change ends every grant the old password stood behind. Each grant is
 * shown working first, then dead after `POST /auth/password`, by the very request that used
 * to work: the OAuth access and refresh tokens, the OAuth browser session (a new client
 * authorized with no password), a personal access token, and the app's own refresh token.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import request from "supertest";
import { useTestDatabase } from "../helpers/database.js";
import { authorizeUrl, mcpStatusWith } from "../helpers/oauthFlow.js";
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

useTestDatabase("oauth-password-change");

const EMAIL = "password-change@example.com";

describe("a password change ends every grant", () => {
  let server: OAuthTestServer;
  before(async () => {
    server = await startOAuthApp();
  });
  after(() => server.close());

  /** The code flow in the browser `cookies`, returning the code (or undefined when refused). */
  async function authorize(client: string, cookies: Cookies, password: string) {
    const { verifier, challenge } = pkce();
    const url = authorizeUrl({ base: server.url, clientId: client, codeChallenge: challenge });
    const landed = await signInAndConsent(url, { email: EMAIL, password, cookies });
    const location = landed.location ? new URL(landed.location) : undefined;
    const code =
      location && `${location.origin}${location.pathname}` === CALLBACK
        ? (location.searchParams.get("code") ?? undefined)
        : undefined;
    return { code, verifier };
  }

  const mcpStatus = (token: string) => mcpStatusWith(server.url, token);
  const refreshOAuth = (client: string, refreshToken: string) =>
    request(server.app)
      .post("/oauth/oauth2/token")
      .type("form")
      .send({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: client });

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
    const granted = await authorize(first, browser, PASSWORD);
    assert.ok(granted.code, "the first client gets a code");
    const exchanged = await exchangeCode(server.url, {
      code: granted.code,
      code_verifier: granted.verifier,
      client_id: first,
      redirect_uri: CALLBACK,
      resource: server.mcpUrl,
    });
    assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
    const oauthRefresh = exchanged.body.refresh_token as string;
    assert.ok(oauthRefresh, "offline_access gives a refresh token");
    assert.equal(await mcpStatus(exchanged.body.access_token as string), 200);
    // Before the change, each grant works: a refresh mints a token, and the signed-in
    // browser authorizes another client without the password (a wrong one is never asked).
    const before = await refreshOAuth(first, oauthRefresh);
    assert.equal(before.status, 200, before.text);
    const second = await registerClient(server.url);
    assert.ok((await authorize(second, browser, "not the password")).code, "the session works");

    const changed = await request(server.app)
      .post("/auth/password")
      .set(auth)
      .send({ currentPassword: PASSWORD, newPassword: "a brand new secret" });
    assert.equal(changed.status, 200, changed.text);

    // Issue #33.7: the OAuth access tokens die at once, as on revoking the app.
    for (const token of [exchanged.body.access_token, before.body.access_token]) {
      assert.equal(await mcpStatus(token as string), 401, "the OAuth access token still works");
    }
    const refreshed = await refreshOAuth(first, before.body.refresh_token as string);
    assert.notEqual(
      refreshed.status,
      200,
      `the OAuth refresh token still works: ${refreshed.text}`,
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
