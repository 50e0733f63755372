/**
 * An authorization code issued before its app was revoked mints nothing after: the person
 * consents, the app has not exchanged its code yet, and the person revokes it at
 * `DELETE /auth/connections/:clientId` (or changes the password). The exchange that follows is
 * refused, and no token reaches the app.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { useTestDatabase } from "../helpers/database.js";
import { authorizeUrl } from "../helpers/oauthFlow.js";
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

useTestDatabase("oauth-revoked-code");

describe("a code in flight when its app is revoked", () => {
  let server: OAuthTestServer;
  before(async () => {
    server = await startOAuthApp();
  });
  after(() => server.close());

  async function signUp(email: string): Promise<string> {
    const response = await fetch(`${server.url}/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: PASSWORD, name: "Coder" }),
    });
    assert.equal(response.status, 201);
    return ((await response.json()) as { data: { token: string } }).data.token;
  }

  /** Sign-in and consent up to the callback: the code, not yet exchanged. */
  async function codeFor(clientId: string, email: string) {
    const { verifier, challenge } = pkce();
    const url = authorizeUrl({ base: server.url, clientId, codeChallenge: challenge });
    const landed = await signInAndConsent(url, {
      email,
      password: PASSWORD,
      cookies: new Cookies(),
    });
    const code = new URL(landed.location ?? "about:blank").searchParams.get("code");
    assert.ok(code, `no code: ${landed.status} ${landed.body}`);
    return () =>
      exchangeCode(server.url, {
        code,
        code_verifier: verifier,
        client_id: clientId,
        redirect_uri: CALLBACK,
        resource: `${server.url}/mcp`,
      });
  }

  test("revoking the app before the exchange: the exchange is refused", async () => {
    const email = "code-revoked@example.com";
    const session = await signUp(email);
    const clientId = await registerClient(server.url);
    const exchange = await codeFor(clientId, email);
    const revoked = await fetch(`${server.url}/auth/connections/${clientId}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${session}` },
    });
    assert.equal(revoked.status, 204);
    const exchanged = await exchange();
    assert.equal(exchanged.status, 400, JSON.stringify(exchanged.body));
    assert.equal(exchanged.body.error, "invalid_grant");
    assert.equal(exchanged.body.access_token, undefined);
  });

  test("changing the password before the exchange: the exchange is refused", async () => {
    const email = "code-password@example.com";
    const session = await signUp(email);
    const clientId = await registerClient(server.url);
    const exchange = await codeFor(clientId, email);
    const changed = await fetch(`${server.url}/auth/password`, {
      method: "POST",
      headers: { authorization: `Bearer ${session}`, "content-type": "application/json" },
      body: JSON.stringify({ currentPassword: PASSWORD, newPassword: `${PASSWORD} changed` }),
    });
    assert.equal(changed.status, 200);
    const exchanged = await exchange();
    assert.equal(exchanged.status, 400, JSON.stringify(exchanged.body));
    assert.equal(exchanged.body.error, "invalid_grant");
  });

  test("an app connected again after a revocation works: only older codes are refused", async () => {
    const email = "code-again@example.com";
    const session = await signUp(email);
    const clientId = await registerClient(server.url);
    await codeFor(clientId, email);
    const revoked = await fetch(`${server.url}/auth/connections/${clientId}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${session}` },
    });
    assert.equal(revoked.status, 204);
    // At once, most likely within the revocation's second: the new consent vouches for the code.
    const exchange = await codeFor(clientId, email);
    const exchanged = await exchange();
    assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
  });
});
