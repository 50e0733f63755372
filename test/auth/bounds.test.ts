/**
 * Input bounds and headers of the auth routes: bcrypt's 72-byte limit is refused rather than
 * silently truncated, token responses are never cached, and helmet's headers are on every
 * API response.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Express } from "express";
import helmet from "helmet";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import {
  hashPassword,
  MAX_PASSWORD_BYTES,
  MIN_PASSWORD_LENGTH,
  verifyPassword,
} from "../../src/auth/password.js";
import { TerrenoError } from "../../src/core/errors.js";
import { bearer, signUp } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { User } from "../helpers/models.js";
import { buildRestApp, JWT_SECRET } from "../helpers/restApp.js";

useTestDatabase("auth_bounds");

let counter = 0;
const email = () => `bounds${++counter}-${Date.now()}@example.com`;

describe("password bounds", () => {
  let app: Express;

  before(() => {
    app = buildRestApp();
  });

  test("72 UTF-8 bytes are accepted; 73 are a 400 naming password, on signup and login", async () => {
    assert.equal(MAX_PASSWORD_BYTES, 72);
    const address = email();
    const exact = "p".repeat(72);
    const created = await request(app)
      .post("/auth/signup")
      .send({ email: address, password: exact });
    assert.equal(created.status, 201);

    // Before: bcrypt read only the first 72 bytes, so any suffix logged in.
    const withSuffix = await request(app)
      .post("/auth/login")
      .send({ email: address, password: `${exact}anything` });
    assert.equal(withSuffix.status, 400);
    assert.equal(withSuffix.body.code, "validation_failed");
    assert.match(withSuffix.body.fields.password, /72 bytes/);

    const tooLong = await request(app)
      .post("/auth/signup")
      .send({ email: email(), password: "p".repeat(73) });
    assert.equal(tooLong.status, 400);
    assert.deepEqual(Object.keys(tooLong.body.fields), ["password"]);
    assert.match(tooLong.body.fields.password, /at most 72 bytes/);
  });

  test("the limit counts bytes, not characters", async () => {
    // 37 characters, 74 bytes.
    const accented = "é".repeat(37);
    assert.equal(accented.length, 37);
    const res = await request(app)
      .post("/auth/signup")
      .send({ email: email(), password: accented });
    assert.equal(res.status, 400);
    assert.ok(res.body.fields.password);
    // 18 four-byte emoji: 72 bytes, 36 UTF-16 units, accepted.
    const emoji = "🔑".repeat(18);
    const ok = await request(app).post("/auth/signup").send({ email: email(), password: emoji });
    assert.equal(ok.status, 201);
  });

  test(`the minimum is ${MIN_PASSWORD_LENGTH} characters`, async () => {
    const short = await request(app)
      .post("/auth/signup")
      .send({ email: email(), password: "seven77" });
    assert.equal(short.status, 400);
    assert.equal(short.body.fields.password, "must be at least 8 characters");
    const eight = await request(app)
      .post("/auth/signup")
      .send({ email: email(), password: "eight888" });
    assert.equal(eight.status, 201);
    const wrongType = await request(app)
      .post("/auth/signup")
      .send({ email: email(), password: 123456789 });
    assert.equal(wrongType.body.fields.password, "must be a string");
  });

  test("POST /auth/password applies the same bounds to newPassword", async () => {
    const user = await signUp(app, "newpw");
    const res = await request(app)
      .post("/auth/password")
      .set(bearer(user))
      .send({ currentPassword: "correct horse battery", newPassword: "x".repeat(73) });
    assert.equal(res.status, 400);
    assert.match(res.body.fields.newPassword, /72 bytes/);
    const unknown = await request(app)
      .post("/auth/password")
      .set(bearer(user))
      .send({ currentPassword: "correct horse battery", newPassword: "long enough", admin: true });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.fields.admin, "is not an allowed field");
  });

  test("hashPassword refuses what bcrypt would truncate; verifyPassword never matches it", async () => {
    await assert.rejects(hashPassword("y".repeat(73)), (error: unknown) => {
      assert.ok(error instanceof TerrenoError);
      assert.equal(error.code, "validation_failed");
      assert.ok(error.fields?.password);
      return true;
    });
    const hash = await hashPassword("z".repeat(72));
    assert.equal(await verifyPassword("z".repeat(72), hash), true);
    assert.equal(await verifyPassword(`${"z".repeat(72)}!`, hash), false);
  });
});

describe("response headers", () => {
  let app: Express;

  before(() => {
    app = buildRestApp();
  });

  test("every auth response, token-bearing or not, has Cache-Control: no-store", async () => {
    const address = email();
    const signup = await request(app)
      .post("/auth/signup")
      .send({ email: address, password: "correct horse battery" });
    const login = await request(app)
      .post("/auth/login")
      .send({ email: address, password: "correct horse battery" });
    const refreshed = await request(app)
      .post("/auth/refresh_token")
      .send({ refreshToken: login.body.data.refreshToken });
    const me = await request(app)
      .get("/auth/me")
      .set("Authorization", `Bearer ${refreshed.body.data.token}`);
    const failed = await request(app)
      .post("/auth/login")
      .send({ email: address, password: "wrong password" });
    for (const [name, res, status] of [
      ["signup", signup, 201],
      ["login", login, 200],
      ["refresh", refreshed, 200],
      ["me", me, 200],
      ["failed login", failed, 401],
    ] as const) {
      assert.equal(res.status, status, name);
      assert.equal(res.headers["cache-control"], "no-store", name);
      assert.equal(res.headers.pragma, "no-cache", name);
    }
  });

  test("helmet's headers are on API responses, errors included", async () => {
    const user = await signUp(app, "helmet");
    const list = await request(app).get("/todos").set(bearer(user));
    const missing = await request(app).get("/nothing-here");
    const anonymous = await request(app).get("/todos");
    for (const res of [list, missing, anonymous]) {
      assert.equal(res.headers["x-content-type-options"], "nosniff");
      assert.equal(res.headers["x-frame-options"], "SAMEORIGIN");
      assert.equal(res.headers["referrer-policy"], "no-referrer");
      assert.match(res.headers["content-security-policy"] ?? "", /default-src 'self'/);
      assert.equal(res.headers["x-powered-by"], undefined);
    }
    assert.equal(list.status, 200);
    assert.equal(missing.status, 404);
    assert.equal(anonymous.status, 401);
  });

  test("helmet can be tuned or turned off, and a route can relax the CSP for itself", async () => {
    const options = { userModel: User, auth: { jwt: { secret: JWT_SECRET } } };
    const off = new TerrenoApp({ ...options, helmet: false }).build();
    const offRes = await request(off).get("/auth/me");
    assert.equal(offRes.headers["x-content-type-options"], undefined);
    assert.equal(offRes.headers["content-security-policy"], undefined);
    // Tokens are still never cached.
    assert.equal(offRes.headers["cache-control"], "no-store");

    const noCsp = new TerrenoApp({ ...options, helmet: { contentSecurityPolicy: false } }).build();
    const tuned = await request(noCsp).get("/auth/me");
    assert.equal(tuned.headers["content-security-policy"], undefined);
    assert.equal(tuned.headers["x-content-type-options"], "nosniff");

    const defaults = new TerrenoApp(options)
      .register({
        name: "chat-page",
        register: (express) =>
          express.get(
            "/chat",
            helmet.contentSecurityPolicy({
              directives: { "script-src": ["'self'", "'unsafe-inline'"] },
            }),
            (_req, res) => {
              res.type("html").send("<!doctype html><script>1</script>");
            },
          ),
      })
      .build();
    const relaxed = await request(defaults).get("/chat");
    assert.equal(relaxed.status, 200);
    assert.match(relaxed.headers["content-security-policy"], /script-src 'self' 'unsafe-inline'/);
    const strict = await request(defaults).get("/auth/me");
    assert.match(strict.headers["content-security-policy"], /script-src 'self';/);
  });
});
