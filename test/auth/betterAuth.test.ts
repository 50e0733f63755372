import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Express } from "express";
import mongoose from "mongoose";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import {
  betterAuthPlugin,
  createBetterAuth,
  type TerrenoBetterAuth,
} from "../../src/auth/betterAuth.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { bearer, PASSWORD, signUp } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { Todo, User } from "../helpers/models.js";
import { JWT_SECRET, todoOptions } from "../helpers/restApp.js";

useTestDatabase("auth_better_auth");

const ORIGIN = "http://localhost:3000";
const BA_SECRET = "better-auth-test-secret-0123456789abcdefghijklmnop";
const COOKIE = "better-auth.session_token";

interface BaSession {
  email: string;
  /** `better-auth.session_token=<signed token>`, ready for a Cookie header. */
  cookie: string;
  /** The `set-auth-token` header: the signed session token for `Authorization: Bearer`. */
  token: string;
}

let counter = 0;
const freshEmail = (name: string) => `${name}${++counter}-${Date.now()}@example.com`;

function sessionFrom(res: request.Response, email: string): BaSession {
  const setCookie = ([] as string[]).concat(res.headers["set-cookie"] ?? []);
  const cookie = setCookie.map((c) => c.split(";")[0]).find((c) => c.startsWith(`${COOKIE}=`));
  const token = res.headers["set-auth-token"];
  assert.ok(cookie, `no session cookie in ${JSON.stringify(setCookie)}`);
  assert.ok(token, "no set-auth-token header");
  return { email, cookie, token };
}

async function baSignUp(app: Express, email: string, name = "Ba User"): Promise<BaSession> {
  const res = await request(app)
    .post("/api/auth/sign-up/email")
    .set("Origin", ORIGIN)
    .send({ email, password: PASSWORD, name });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return sessionFrom(res, email);
}

async function baSignIn(app: Express, email: string): Promise<BaSession> {
  const res = await request(app)
    .post("/api/auth/sign-in/email")
    .set("Origin", ORIGIN)
    .send({ email, password: PASSWORD });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return sessionFrom(res, email);
}

const viaCookie = (s: BaSession) => ({ Cookie: s.cookie });
const viaBearer = (s: BaSession) => ({ Authorization: `Bearer ${s.token}` });
const rawToken = (s: BaSession) => decodeURIComponent(s.token).split(".")[0];

async function createTodo(app: Express, headers: Record<string, string>, title: string) {
  return request(app).post("/todos").set(headers).send({ title });
}

function buildApp(auth: TerrenoBetterAuth, linkUnverifiedEmails = false): Express {
  return new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
    .register(betterAuthPlugin(auth, { userModel: User, linkUnverifiedEmails }))
    .register(modelRouter(Todo, todoOptions()))
    .build();
}

describe("Better Auth sessions on the framework's routes", () => {
  let auth: TerrenoBetterAuth;
  let app: Express;

  before(() => {
    auth = createBetterAuth({
      secret: BA_SECRET,
      baseURL: ORIGIN,
      trustedOrigins: [ORIGIN],
      logger: { disabled: true },
      // Better Auth skips its origin checks when NODE_ENV=test; keep them on whatever the env.
      advanced: { disableOriginCheck: false },
    });
    app = buildApp(auth);
  });

  test("sign-up gives a session cookie and a bearer token; both work on REST routes", async () => {
    const alice = await baSignUp(app, freshEmail("alice"), "Alice");
    for (const [how, headers] of [
      ["cookie", viaCookie(alice)],
      ["bearer", viaBearer(alice)],
    ] as const) {
      const created = await createTodo(app, headers, `via ${how}`);
      assert.equal(created.status, 201, `${how}: ${JSON.stringify(created.body)}`);
      assert.equal(created.body.data.ownerId.name, "Alice");
    }
    const appUser = await User.findOne({ email: alice.email }).select("+passwordHash").lean();
    assert.ok(appUser, "the app user was created on first sight");
    assert.equal((appUser as { name?: string }).name, "Alice");
    const hash = String((appUser as { passwordHash?: string }).passwordHash);
    assert.doesNotMatch(hash, /^\$2/, "an unusable, non-bcrypt password hash");
    const list = await request(app).get("/todos").set(viaBearer(alice));
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.map((t: { title: string }) => t.title).sort(), [
      "via bearer",
      "via cookie",
    ]);
    assert.ok(
      list.body.data.every(
        (t: { ownerId: { id: string } }) => t.ownerId.id === String(appUser._id),
      ),
    );
    // Password login through the JWT routes can never match the unusable hash.
    const login = await request(app)
      .post("/auth/login")
      .send({ email: alice.email, password: PASSWORD });
    assert.equal(login.status, 401);
  });

  test("a second sign-in maps to the same app user", async () => {
    const email = freshEmail("bob");
    const first = await baSignUp(app, email);
    const a = await createTodo(app, viaCookie(first), "first session");
    const second = await baSignIn(app, email);
    assert.notEqual(second.token, first.token);
    const b = await createTodo(app, viaBearer(second), "second session");
    assert.equal(a.status, 201);
    assert.equal(b.status, 201);
    assert.equal(a.body.data.ownerId.id, b.body.data.ownerId.id);
    assert.equal(await User.countDocuments({ email }), 1);
  });

  test("concurrent first requests create one app user", async () => {
    const kim = await baSignUp(app, freshEmail("kim"));
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => request(app).get("/todos").set(viaBearer(kim))),
    );
    assert.deepEqual(
      responses.map((r) => r.status),
      Array(6).fill(200),
    );
    assert.equal(await User.countDocuments({ email: kim.email }), 1);
  });

  test("an existing JWT user is linked by email once Better Auth has verified it", async () => {
    const jwtUser = await signUp(app, "carol");
    const session = await baSignUp(app, jwtUser.email.toUpperCase());
    // Unverified: anyone may sign up to Better Auth with any address, so no takeover.
    const refused = await createTodo(app, viaCookie(session), "not yet");
    assert.equal(refused.status, 401);
    assert.match(refused.body.detail, /verify the email/);
    assert.equal((await createTodo(app, viaBearer(session), "not yet")).status, 401);
    const users = mongoose.connection.db?.collection("user");
    await users?.updateOne({ email: jwtUser.email }, { $set: { emailVerified: true } });
    const linked = await createTodo(app, viaBearer(session), "linked");
    assert.equal(linked.status, 201, JSON.stringify(linked.body));
    assert.equal(linked.body.data.ownerId.id, jwtUser.userId);
    const viaJwt = await request(app).get("/todos").set(bearer(jwtUser));
    assert.deepEqual(
      viaJwt.body.data.map((t: { title: string }) => t.title),
      ["linked"],
    );
    assert.equal(await User.countDocuments({ email: jwtUser.email }), 1);
  });

  test("linkUnverifiedEmails links an existing JWT user without verification", async () => {
    const trusting = buildApp(auth, true);
    const jwtUser = await signUp(trusting, "dave");
    const session = await baSignUp(trusting, jwtUser.email);
    const linked = await createTodo(trusting, viaCookie(session), "linked at once");
    assert.equal(linked.status, 201, JSON.stringify(linked.body));
    assert.equal(linked.body.data.ownerId.id, jwtUser.userId);
    assert.equal(await User.countDocuments({ email: jwtUser.email }), 1);
  });

  test("invalid tokens and cookies get 401; unrelated cookies stay anonymous", async () => {
    const erin = await baSignUp(app, freshEmail("erin"));
    const tampered = `${rawToken(erin)}.${"A".repeat(43)}`;
    for (const headers of [
      { Authorization: "Bearer garbage" },
      { Authorization: `Bearer ${tampered}` },
      { Authorization: `Bearer ${erin.token}x` },
      { Cookie: `${COOKIE}=nonsense` },
      { Cookie: `${COOKIE}=${encodeURIComponent(tampered)}` },
    ]) {
      const res = await request(app).get("/todos").set(headers);
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.equal(res.body.code, "unauthenticated");
    }
    // Caller resolution runs on every route; a 404 shows it let the request through.
    const unrelated = await request(app).get("/nowhere").set("Cookie", "theme=dark; lang=en");
    assert.equal(unrelated.status, 404);
    const bogus = await request(app).get("/nowhere").set("Cookie", `theme=dark; ${COOKIE}=x`);
    assert.equal(bogus.status, 401);
  });

  test("an expired session gets 401 by cookie and by bearer", async () => {
    const frank = await baSignUp(app, freshEmail("frank"));
    assert.equal((await createTodo(app, viaBearer(frank), "before")).status, 201);
    const sessions = mongoose.connection.db?.collection("session");
    const updated = await sessions?.updateOne(
      { token: rawToken(frank) },
      { $set: { expiresAt: new Date(Date.now() - 1000) } },
    );
    assert.equal(updated?.modifiedCount, 1);
    assert.equal((await request(app).get("/todos").set(viaCookie(frank))).status, 401);
    assert.equal((await request(app).get("/todos").set(viaBearer(frank))).status, 401);
  });

  test("a signed-out session gets 401", async () => {
    const gina = await baSignUp(app, freshEmail("gina"));
    assert.equal((await request(app).get("/todos").set(viaCookie(gina))).status, 200);
    // With a cookie, Better Auth's CSRF check wants a trusted Origin.
    const noOrigin = await request(app).post("/api/auth/sign-out").set(viaCookie(gina));
    assert.equal(noOrigin.status, 403);
    const out = await request(app)
      .post("/api/auth/sign-out")
      .set(viaCookie(gina))
      .set("Origin", ORIGIN);
    assert.equal(out.status, 200, JSON.stringify(out.body));
    assert.equal((await request(app).get("/todos").set(viaCookie(gina))).status, 401);
    assert.equal((await request(app).get("/todos").set(viaBearer(gina))).status, 401);
  });

  test("a disabled app user gets 401", async () => {
    const hank = await baSignUp(app, freshEmail("hank"));
    assert.equal((await request(app).get("/todos").set(viaBearer(hank))).status, 200);
    await User.updateOne({ email: hank.email }, { $set: { disabled: true } });
    const byCookie = await request(app).get("/todos").set(viaCookie(hank));
    assert.equal(byCookie.status, 401);
    assert.equal(byCookie.body.detail, "This user is disabled.");
    // By bearer the JWT provider rejected the token first, and the resolver reports the first
    // rejection, so only the status is the same.
    const byBearer = await request(app).get("/todos").set(viaBearer(hank));
    assert.equal(byBearer.status, 401);
    assert.equal(byBearer.body.code, "unauthenticated");
  });

  test("a JWT and a Better Auth token work on the same routes, each seeing its own todos", async () => {
    const jwtUser = await signUp(app, "ivan");
    const baUser = await baSignUp(app, freshEmail("judy"));
    assert.equal((await createTodo(app, bearer(jwtUser), "jwt todo")).status, 201);
    assert.equal((await createTodo(app, viaBearer(baUser), "ba todo")).status, 201);
    const jwtList = await request(app).get("/todos").set(bearer(jwtUser));
    const baList = await request(app).get("/todos").set(viaBearer(baUser));
    assert.deepEqual(
      jwtList.body.data.map((t: { title: string }) => t.title),
      ["jwt todo"],
    );
    assert.deepEqual(
      baList.body.data.map((t: { title: string }) => t.title),
      ["ba todo"],
    );
    const me = await request(app).get("/auth/me").set(viaBearer(baUser));
    assert.equal(me.status, 200);
    assert.equal(me.body.data.email, baUser.email);
  });

  test("Better Auth refuses untrusted origins on its own endpoints", async () => {
    const res = await request(app)
      .post("/api/auth/sign-up/email")
      .set("Origin", "https://evil.example")
      .send({ email: freshEmail("mallory"), password: PASSWORD, name: "M" });
    assert.equal(res.status, 403);
  });
});
