/**
 * Browsers get the device token only as its HttpOnly cookie (issue 33, info item): a page
 * script that calls `/auth/login` (or `/auth/password`) must not find it in the JSON, or an
 * injected script could carry it off and sign in as a known device. A request is a browser's
 * when it carries `Origin` or `Sec-Fetch-Site`, headers no page script can remove; API clients
 * (curl, SDKs, Node's fetch) send neither and still find it in `data.deviceToken`.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { PASSWORD, signUp } from "../helpers/auth.js";
import { browserSkipReason, launchChromium } from "../helpers/browser.js";
import { useTestDatabase } from "../helpers/database.js";
import { type Listening, listen } from "../helpers/mcpClients.js";
import { User } from "../helpers/models.js";
import { JWT_SECRET } from "../helpers/restApp.js";

useTestDatabase("auth_device_token_body");

const TOKEN = /^tdv_[A-Za-z0-9_-]{43}$/;

const app = new TerrenoApp({
  userModel: User,
  auth: { jwt: { secret: JWT_SECRET } },
  rateLimit: { auth: { perIp: false } },
}).build();

const cookieToken = (res: request.Response) =>
  /terreno_device=(tdv_[A-Za-z0-9_-]{43})/.exec(String(res.headers["set-cookie"]))?.[1];

describe("the device token in the login answer", () => {
  test("an API client (no Origin, no Sec-Fetch-Site) finds it in the JSON and the cookie", async () => {
    const user = await signUp(app, "api");
    const res = await request(app)
      .post("/auth/login")
      .send({ email: user.email, password: PASSWORD });
    assert.equal(res.status, 200);
    assert.match(res.body.data.deviceToken, TOKEN);
    assert.equal(cookieToken(res), res.body.data.deviceToken);
  });

  for (const [header, value] of [
    ["Origin", "http://127.0.0.1:4000"],
    ["Sec-Fetch-Site", "same-origin"],
  ] as const) {
    test(`a request with ${header} gets it only as the HttpOnly cookie`, async () => {
      const user = await signUp(app, "browser");
      const res = await request(app)
        .post("/auth/login")
        .set(header, value)
        .send({ email: user.email, password: PASSWORD });
      assert.equal(res.status, 200);
      assert.ok(res.body.data.token);
      assert.equal(res.body.data.deviceToken, undefined, JSON.stringify(res.body));
      assert.doesNotMatch(JSON.stringify(res.body), /tdv_/);
      const token = cookieToken(res);
      assert.match(token ?? "", TOKEN);
      assert.match(String(res.headers["set-cookie"]), /HttpOnly/);
      // The cookie is a device token: sent back, it is recognised (the answer renews it).
      const again = await request(app)
        .post("/auth/login")
        .set(header, value)
        .set("Cookie", `terreno_device=${token}`)
        .send({ email: user.email, password: PASSWORD });
      assert.equal(again.status, 200);
      assert.equal(cookieToken(again), token);
    });
  }

  test("a password change from a browser answers the new token only as the cookie", async () => {
    const user = await signUp(app, "changer");
    const res = await request(app)
      .post("/auth/password")
      .set("Authorization", `Bearer ${user.token}`)
      .set("Origin", "http://127.0.0.1:4000")
      .send({ currentPassword: PASSWORD, newPassword: "a brand new horse battery" });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(res.body.data.token);
    assert.equal(res.body.data.deviceToken, undefined);
    assert.match(cookieToken(res) ?? "", TOKEN);
  });
});

describe("the device token, as a page script in Chromium sees it", {
  skip: browserSkipReason(),
}, () => {
  let server: Listening;
  let browser: Browser;
  before(async () => {
    server = await listen(app);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test("fetch('/auth/login') from the app's own page: no device token in the JSON or document.cookie", async () => {
    const user = await signUp(app, "chromium");
    const page = await browser.newPage();
    // Any page of the origin: the script runs as the app's own page would.
    await page.goto(`${server.url}/auth/me`);
    const seen = await page.evaluate(
      async ({ email, password }) => {
        const res = await fetch("/auth/login", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ email, password }),
        });
        return { status: res.status, body: await res.text() };
      },
      { email: user.email, password: PASSWORD },
    );
    assert.equal(seen.status, 200, seen.body);
    assert.ok(JSON.parse(seen.body).data.token);
    assert.doesNotMatch(seen.body, /tdv_/);
    // Nor can a script read the cookie (HttpOnly).
    assert.doesNotMatch(String(await page.evaluate("document.cookie")), /terreno_device/);
    // The browser holds it, HttpOnly, for the next sign-in.
    const cookies = await page.context().cookies(server.url);
    const device = cookies.find((cookie) => cookie.name === "terreno_device");
    assert.match(device?.value ?? "", TOKEN);
    assert.equal(device?.httpOnly, true);
    await page.close();
  });
});
