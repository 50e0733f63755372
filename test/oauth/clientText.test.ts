/**
 * Issue #33.12, the pages' info findings: the consent heading is built from the provider's
 * signed parameters only (a `redirect_uri` prepended to the link named "claude.ai"), and text
 * a client chose (its name, its redirect URI's host) cannot reorder what is around it with
 * bidi controls (U+202E and the like) on any page or in the connected-apps list.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import request from "supertest";
import { useTestDatabase } from "../helpers/database.js";
import { authorizeUrl, connectByOAuth } from "../helpers/oauthFlow.js";
import { Cookies, step } from "./httpFlow.js";
import { CALLBACK, PASSWORD, pkce, registerClient, useOAuthApp } from "./oauthApp.js";

useTestDatabase("oauth_client_text");

const EMAIL = "client-text@example.com";
/** Bidi embedding, override and isolate controls, and the marks. */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
const SPOOFED_NAME = "Claude \u202Eedoc\u202C by Anthropic";

describe("client-supplied text and the consent heading", () => {
  const server = useOAuthApp({}, EMAIL);

  /** A browser signed in for `clientId`, with the consent page's URL it was sent to. */
  async function atConsent(clientId: string) {
    const cookies = new Cookies();
    const first = await step(
      cookies,
      authorizeUrl({ base: server.url, clientId, codeChallenge: pkce().challenge }),
    );
    const login = new URL(first.location ?? "about:blank");
    assert.equal(login.pathname, "/oauth/login", `${first.status} ${first.body}`);
    const loginPage = await step(cookies, login.href);
    const signedIn = await step(cookies, `${server.url}/oauth/login`, {
      email: EMAIL,
      password: PASSWORD,
      oauth_query: login.search.slice(1),
    });
    const consent = new URL(signedIn.location ?? "about:blank");
    assert.equal(consent.pathname, "/oauth/consent", `${signedIn.status} ${signedIn.body}`);
    return { cookies, consent, loginPage };
  }

  test("a redirect_uri prepended to the signed consent link is not what the heading names", async () => {
    const clientId = await registerClient(server.url);
    const { cookies, consent } = await atConsent(clientId);
    const genuine = await step(cookies, consent.href);
    assert.match(genuine.body, /<bdi><span id="consent-host">127\.0\.0\.1:9/);
    const forged = `${server.url}/oauth/consent?redirect_uri=${encodeURIComponent("https://claude.ai/cb")}&${consent.search.slice(1)}`;
    const shown = await step(cookies, forged);
    assert.doesNotMatch(shown.body, /claude\.ai/, "the unsigned redirect_uri was shown");
    assert.equal(shown.status, 400);
    assert.match(shown.body, /expired or was changed/);
  });

  test("bidi controls in a client's name are not passed to the pages or the list", async () => {
    const registered = await request(server.app)
      .post("/oauth/oauth2/register")
      .send({
        client_name: SPOOFED_NAME,
        redirect_uris: [CALLBACK],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      });
    assert.equal(registered.status, 201, registered.text);
    const clientId = registered.body.client_id as string;
    const { cookies, consent, loginPage } = await atConsent(clientId);
    const consentPage = await step(cookies, consent.href);
    for (const [name, html] of [
      ["sign-in", loginPage.body],
      ["consent", consentPage.body],
    ] as const) {
      assert.doesNotMatch(html, BIDI_CONTROLS, `${name} page passes bidi controls on`);
      assert.match(
        html,
        /<bdi><strong id="client-name">Claude edoc by Anthropic<\/strong><\/bdi>/,
        name,
      );
    }

    const session = await request(server.app)
      .post("/auth/login")
      .send({ email: EMAIL, password: PASSWORD });
    assert.equal(session.status, 200, session.text);
    await connectByOAuth({ base: server.url, clientId, email: EMAIL });
    const listed = await request(server.app)
      .get("/auth/connections")
      .set("Authorization", `Bearer ${session.body.data.token as string}`);
    const app = (listed.body.data as Array<{ clientId: string; name: string }>).find(
      (entry) => entry.clientId === clientId,
    );
    assert.equal(app?.name, "Claude edoc by Anthropic");
  });
});
