/**
 * The authorization endpoint and its pages against a client anyone can register: errors are
 * never sent to a client the person has not approved (no open redirect), the problem page shows
 * fixed text only, the forms refuse posts that are not same-origin, and the sign-in and consent
 * pages name where the code goes and whether anything vouches for the client's name.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import request from "supertest";
import { useTestDatabase } from "../helpers/database.js";
import { CALLBACK, PASSWORD, pkce, useOAuthApp } from "./oauthApp.js";

useTestDatabase("oauth_authorize_errors");

const EMAIL = "authorize-errors@example.com";
const EVIL = "https://evil.test/landing";

describe("the authorization endpoint and its pages, against a self-registered client", () => {
  const server = useOAuthApp({}, EMAIL);

  async function register(name: string, redirectUri: string): Promise<string> {
    const response = await request(server.app)
      .post("/oauth/oauth2/register")
      .send({
        client_name: name,
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: "none",
      });
    assert.equal(response.status, 201, response.text);
    return response.body.client_id as string;
  }

  const authorizeQuery = (clientId: string, redirectUri: string, extra = {}) => ({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: "mcp:read",
    code_challenge: pkce().challenge,
    code_challenge_method: "S256",
    ...extra,
  });

  /** A browser (cookie jar) that signed in for `clientId`, stopping at its consent page. */
  async function signedInBrowser(clientId: string, redirectUri: string) {
    const browser = request.agent(server.app);
    const authorize = await browser
      .get("/oauth/oauth2/authorize")
      .query(authorizeQuery(clientId, redirectUri));
    const loginUrl = authorize.headers.location ?? "";
    assert.match(loginUrl, /^\/oauth\/login\?/, authorize.text);
    const loginPage = await browser.get(loginUrl);
    const signedIn = await browser
      .post("/oauth/login")
      .set("Origin", server.url)
      .type("form")
      .send({ email: EMAIL, password: PASSWORD, oauth_query: loginUrl.split("?")[1] });
    const consentUrl = signedIn.headers.location ?? "";
    assert.match(consentUrl, /^\/oauth\/consent\?/, signedIn.text);
    return { browser, loginPage, consentUrl };
  }

  test("an error for a client nobody approved lands on the server's page, never the client's URI", async () => {
    const client = await register("Claude Code", EVIL);
    const query = { response_type: "code", client_id: client, redirect_uri: EVIL, scope: "nope" };
    const navigated = await request(server.app).get("/oauth/oauth2/authorize").query(query);
    assert.equal(navigated.status, 302);
    assert.equal(navigated.headers.location, `${server.url}/oauth/problem?error=invalid_scope`);
    // A fetch gets the same answer as JSON.
    const fetched = await request(server.app)
      .get("/oauth/oauth2/authorize")
      .set("Accept", "application/json")
      .query(query);
    assert.equal(fetched.body.url, `${server.url}/oauth/problem?error=invalid_scope`);
    const page = await request(server.app).get("/oauth/problem?error=invalid_scope");
    assert.equal(page.status, 400);
    assert.match(page.text, /asked for permissions this server does not offer\. \(invalid_scope\)/);
    // Other errors past the redirect URI check (PKCE) alike.
    const plain = await request(server.app)
      .get("/oauth/oauth2/authorize")
      .query(authorizeQuery(client, EVIL, { code_challenge_method: "plain" }));
    assert.equal(plain.headers.location, `${server.url}/oauth/problem?error=invalid_request`);
  });

  test("a client the person approved still gets its errors at its redirect URI", async () => {
    const client = await register("Approved client", CALLBACK);
    const { browser, consentUrl } = await signedInBrowser(client, CALLBACK);
    const allowed = await browser
      .post("/oauth/consent")
      .set("Origin", server.url)
      .type("form")
      .send({ decision: "allow", oauth_query: consentUrl.split("?")[1] });
    assert.match(allowed.headers.location ?? "", /^http:\/\/127\.0\.0\.1:9\/callback\?code=/);
    const plain = await browser
      .get("/oauth/oauth2/authorize")
      .query(authorizeQuery(client, CALLBACK, { state: "s", code_challenge_method: "plain" }));
    const location = new URL(plain.headers.location ?? "about:blank");
    assert.equal(`${location.origin}${location.pathname}`, CALLBACK, plain.text);
    assert.equal(location.searchParams.get("error"), "invalid_request");
    assert.equal(location.searchParams.get("state"), "s");
  });

  test("the problem page shows the code's fixed message, never the caller's text", async () => {
    const spoof = "Your account is locked. Call +1 555 0100 to unlock it.";
    const known = await request(server.app)
      .get("/oauth/problem")
      .query({ error: "access_denied", error_description: spoof });
    assert.equal(known.status, 400);
    assert.match(known.text, /Access was denied\. \(access_denied\)/);
    assert.doesNotMatch(known.text, /555/);
    const unknown = await request(server.app)
      .get("/oauth/problem")
      .query({ error: "call_555_0100", error_description: spoof });
    assert.match(unknown.text, /The sign-in request was refused\./);
    assert.doesNotMatch(unknown.text, /555/);
  });

  test("the forms refuse a post with neither a same-origin Origin nor Sec-Fetch-Site", async () => {
    const form = { email: EMAIL, password: PASSWORD, oauth_query: "client_id=x&sig=y" };
    for (const path of ["/oauth/login", "/oauth/consent"]) {
      const bare = await request(server.app).post(path).type("form").send(form);
      assert.equal(bare.status, 403, `${path}: ${bare.text}`);
      assert.match(bare.text, /not posted from this site/);
      const crossSite = await request(server.app)
        .post(path)
        .set("Sec-Fetch-Site", "cross-site")
        .type("form")
        .send(form);
      assert.equal(crossSite.status, 403);
      const nullOrigin = await request(server.app)
        .post(path)
        .set("Origin", "null")
        .set("Sec-Fetch-Site", "cross-site")
        .type("form")
        .send(form);
      assert.equal(nullOrigin.status, 403);
      // Same-origin by Sec-Fetch-Site alone passes the check (and fails on the forged link).
      const sameSite = await request(server.app)
        .post(path)
        .set("Sec-Fetch-Site", "same-origin")
        .type("form")
        .send(form);
      assert.notEqual(sameSite.status, 403, sameSite.text);
    }
  });

  test("sign-in and consent name the destination host and call the registered name unverified", async () => {
    const client = await register("Claude Code", "https://evil.test/cb");
    const { browser, loginPage, consentUrl } = await signedInBrowser(
      client,
      "https://evil.test/cb",
    );
    assert.match(loginPage.text, /<strong id="client-host">evil\.test<\/strong><\/bdi> is asking/);
    assert.match(loginPage.text, /<strong id="client-name">Claude Code<\/strong>/);
    assert.match(loginPage.text, /<span id="client-trust">unverified<\/span>/);
    const consent = await browser.get(consentUrl);
    assert.equal(consent.status, 200);
    assert.match(
      consent.text,
      /<h1><bdi><span id="consent-host">evil\.test<\/span><\/bdi> wants to use your account<\/h1>/,
    );
    assert.doesNotMatch(consent.text, /<h1>[^<]*Claude Code/);
    assert.match(consent.text, /<span id="client-trust">unverified<\/span>/);
  });
});
