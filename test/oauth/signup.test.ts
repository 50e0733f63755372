/**
 * Issue #24.4: a person with no account creates one on the OAuth sign-in page and the
 * authorization continues, over real HTTP (forms posted with the page's Origin). The page
 * follows `/auth/signup`'s rules (bad and invisible-character emails, short passwords and
 * taken emails refused, nothing created) and spends the same per-IP points.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import request from "supertest";
import { useTestDatabase } from "../helpers/database.js";
import { User } from "../helpers/models.js";
import { authorizeUrl, mcpStatusWith, redeemRedirect } from "../helpers/oauthFlow.js";
import { Cookies, step } from "./httpFlow.js";
import {
  type OAuthTestServer,
  PASSWORD,
  pkce,
  registerClient,
  signUp,
  startOAuthApp,
  useOAuthApp,
} from "./oauthApp.js";

useTestDatabase("oauth-signup");

/** The signed `oauth_query` the server sends a fresh browser to its sign-in page with. */
async function signInQuery(server: OAuthTestServer, client: string, challenge: string) {
  const cookies = new Cookies();
  const url = authorizeUrl({ base: server.url, clientId: client, codeChallenge: challenge });
  const first = await step(cookies, url);
  assert.ok(first.location, `authorize answered ${first.status}`);
  const login = new URL(first.location);
  assert.equal(login.pathname, "/oauth/login");
  return { cookies, oauthQuery: login.search.slice(1) };
}

describe("sign-up on the OAuth sign-in page", () => {
  const server = useOAuthApp();

  const postSignup = (cookies: Cookies, form: Record<string, string>) =>
    step(cookies, `${server.url}/oauth/signup`, form);

  test("a new person creates an account there and the authorization continues", async () => {
    const client = await registerClient(server.url);
    const { verifier, challenge } = pkce();
    const { cookies, oauthQuery } = await signInQuery(server, client, challenge);
    const signIn = await step(cookies, `${server.url}/oauth/login?${oauthQuery}`);
    const link = /id="signup-link" href="([^"]+)"/.exec(signIn.body);
    assert.ok(link, "the sign-in page offers sign-up");
    const form = await step(cookies, new URL(link[1].replaceAll("&amp;", "&"), server.url).href);
    assert.equal(form.status, 200);
    assert.match(form.body, /Create an account on Terreno test/);
    assert.match(form.body, /id="client-host">127\.0\.0\.1:9/);

    const email = "newcomer@example.com";
    const created = await postSignup(cookies, {
      email,
      password: PASSWORD,
      name: "Newcomer",
      oauth_query: oauthQuery,
    });
    assert.equal(created.status, 303, created.body.slice(0, 300));
    assert.equal(new URL(created.location ?? "").pathname, "/oauth/consent");
    const consentPage = await step(cookies, created.location as string);
    assert.equal(consentPage.status, 200);
    const granted = await step(cookies, `${server.url}/oauth/consent`, {
      decision: "allow",
      oauth_query: new URL(created.location as string).search.slice(1),
    });
    const tokens = await redeemRedirect(granted, { base: server.url, clientId: client, verifier });
    assert.equal(await mcpStatusWith(server.url, tokens.accessToken), 200);
    // The same account as /auth/signup makes: its password signs in there too.
    const user = await User.findOne({ email }).lean<{ name?: string }>();
    assert.equal(user?.name, "Newcomer");
    const login = await request(server.app).post("/auth/login").send({ email, password: PASSWORD });
    assert.equal(login.status, 200, login.text);
  });

  test("/auth/signup's rules: bad emails, short passwords and taken emails create nothing", async () => {
    const client = await registerClient(server.url);
    const { cookies, oauthQuery } = await signInQuery(server, client, pkce().challenge);
    const refused = [
      { email: "not-an-email", text: /Email must be an email address/ },
      { email: "zero\u200bwidth@example.com", text: /Email may not contain invisible/ },
      { email: "short@example.com", password: "short", text: /Password must be at least/ },
    ];
    for (const { email, password, text } of refused) {
      const answer = await postSignup(cookies, {
        email,
        password: password ?? PASSWORD,
        oauth_query: oauthQuery,
      });
      assert.equal(answer.status, 400, `${email}: ${answer.status}`);
      assert.match(answer.body, text);
      assert.equal(answer.location, undefined);
    }
    assert.equal(await User.countDocuments({ email: /short|width|not-an/ }), 0);

    await signUp(server.url, "taken@example.com");
    const taken = await postSignup(cookies, {
      email: "Taken@example.com",
      password: "another password",
      oauth_query: oauthQuery,
    });
    assert.equal(taken.status, 409);
    assert.match(taken.body, /already exists\. Sign in instead/);
    assert.equal(await User.countDocuments({ email: "taken@example.com" }), 1);

    // Like the sign-in form: only from its own page.
    const crossSite = await request(server.app)
      .post("/oauth/signup")
      .type("form")
      .send({ email: "cross@example.com", password: PASSWORD, oauth_query: oauthQuery });
    assert.equal(crossSite.status, 403);
    assert.equal(await User.countDocuments({ email: "cross@example.com" }), 0);
  });
});

describe("the OAuth sign-up's limits", () => {
  test("it spends the same per-IP points as /auth/signup", async () => {
    const server = await startOAuthApp({ rateLimit: true });
    try {
      const bad = { email: "nope", password: PASSWORD };
      // 30 points a minute per address (the default), half spent on each form.
      for (let i = 0; i < 15; i++) {
        assert.equal((await request(server.app).post("/auth/signup").send(bad)).status, 400);
        const page = await request(server.app)
          .post("/oauth/signup")
          .set("Origin", server.url)
          .type("form")
          .send({ ...bad, oauth_query: "client_id=x" });
        assert.equal(page.status, 400, page.text.slice(0, 200));
      }
      const good = { email: "late@example.com", password: PASSWORD };
      const api = await request(server.app).post("/auth/signup").send(good);
      assert.equal(api.status, 429, api.text);
      const page = await request(server.app)
        .post("/oauth/signup")
        .set("Origin", server.url)
        .type("form")
        .send({ ...good, oauth_query: "client_id=x" });
      assert.equal(page.status, 429, page.text.slice(0, 200));
      assert.equal(await User.countDocuments({ email: "late@example.com" }), 0);
    } finally {
      await server.close();
    }
  });

  test("an app that sets allowSignup: false offers none", async () => {
    const server = await startOAuthApp({ allowSignup: false });
    try {
      const login = await request(server.app).get("/oauth/login?client_id=x");
      assert.equal(login.status, 200);
      assert.doesNotMatch(login.text, /signup-link/);
      const page = await request(server.app)
        .post("/oauth/signup")
        .set("Origin", server.url)
        .type("form")
        .send({ email: "none@example.com", password: PASSWORD, oauth_query: "client_id=x" });
      assert.notEqual(page.status, 303);
      assert.equal(await User.countDocuments({ email: "none@example.com" }), 0);
    } finally {
      await server.close();
    }
  });
});
