/**
 * Issue #33.13: every refusal on the authorization path shows the server's own page, as a
 * browser acts on the answer. A Client ID Metadata Document the server refuses answered 400
 * with an empty body and a `Location` header, which browsers ignore on a 400: the person saw a
 * blank "HTTP ERROR 400". Checked by the status a browser navigating gets, and in Chromium.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import request from "supertest";
import { browserSkipReason, launchChromium } from "../helpers/browser.js";
import { useTestDatabase } from "../helpers/database.js";
import { authorizeUrl } from "../helpers/oauthFlow.js";
import { pkce, useOAuthApp } from "./oauthApp.js";

useTestDatabase("oauth_refusal_pages");

/** A document on a loopback address: the CIMD fetch refuses to contact it. */
const REFUSED_CLIENT_ID = "https://127.0.0.1:9/client-metadata.json";
const EVIL = "https://evil.test/landing";
/** The statuses a browser follows `Location` on. */
const FOLLOWED = new Set([301, 302, 303, 307, 308]);

describe("refusals on the authorization path, as a browser sees them", () => {
  const server = useOAuthApp();

  const refusedCimdUrl = () =>
    authorizeUrl({
      base: server.url,
      clientId: REFUSED_CLIENT_ID,
      codeChallenge: pkce().challenge,
      scope: "mcp:read",
    });

  /** A navigation: what a browser sends, so the library answers as to a browser. */
  const navigate = (url: string) =>
    request(server.app)
      .get(new URL(url).pathname + new URL(url).search)
      .set("Accept", "text/html,application/xhtml+xml")
      .set("Sec-Fetch-Mode", "navigate")
      .redirects(0);

  test("a refused metadata document redirects the browser (303) to the problem page", async () => {
    const answered = await navigate(refusedCimdUrl());
    assert.ok(
      FOLLOWED.has(answered.status),
      `a browser ignores Location on ${answered.status}: ${answered.headers.location}`,
    );
    assert.equal(answered.status, 303);
    const location = new URL(answered.headers.location ?? "", server.url);
    assert.equal(location.pathname, "/oauth/problem");
    const page = await request(server.app).get(location.pathname + location.search);
    assert.match(page.text, /Sign-in refused/);
    assert.match(page.text, /This application&#39;s description/);
  });

  test("an error for a client nobody approved is a redirect a browser follows", async () => {
    const registered = await request(server.app)
      .post("/oauth/oauth2/register")
      .send({ client_name: "Nobody approved", redirect_uris: [EVIL] });
    assert.equal(registered.status, 201, registered.text);
    const query = new URLSearchParams({
      response_type: "code",
      client_id: registered.body.client_id,
      redirect_uri: EVIL,
      scope: "nope",
    });
    const answered = await navigate(`${server.url}/oauth/oauth2/authorize?${query}`);
    assert.ok(FOLLOWED.has(answered.status), `status ${answered.status}`);
    assert.equal(
      new URL(answered.headers.location ?? "", server.url).href,
      `${server.url}/oauth/problem?error=invalid_scope`,
    );
  });

  describe("in Chromium", { skip: browserSkipReason() }, () => {
    let browser: Browser;
    before(async () => {
      browser = await launchChromium();
    });
    after(() => browser?.close());

    test("a refused metadata document shows the problem page's text", async () => {
      const page = await browser.newPage();
      try {
        await page.goto(refusedCimdUrl());
        assert.equal(new URL(page.url()).pathname, "/oauth/problem");
        assert.equal(await page.locator("h1").textContent(), "Sign-in refused");
        assert.match(
          (await page.locator("[role=alert]").textContent()) ?? "",
          /This application's description/,
        );
      } finally {
        await page.close();
      }
    });
  });
});
