import assert from "node:assert/strict";
import { describe, test } from "node:test";
import jwt from "jsonwebtoken";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { authUserPlugin } from "../../src/auth/userPlugin.js";
import type { PlainObject } from "../../src/core/types.js";
import { bearer, signedUp, signUp } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { User } from "../helpers/models.js";
import { buildRestApp, JWT_SECRET } from "../helpers/restApp.js";

useTestDatabase("auth_jwt");

describe("JWT auth", () => {
  const app = buildRestApp();
  const [alice] = signedUp(app, "alice");

  test("signup returns 201 tokens and stores a hash, never the password", async () => {
    assert.ok(alice.token && alice.refreshToken && alice.userId);
    const stored = await User.findById(alice.userId).select("+passwordHash").lean();
    const hash = (stored as { passwordHash?: string } | null)?.passwordHash ?? "";
    assert.match(hash, /^\$2[aby]\$/);
    assert.doesNotMatch(hash, /correct horse/);
  });

  test("login returns the same shape with 200; a wrong password is 401", async () => {
    const ok = await request(app)
      .post("/auth/login")
      .send({ email: alice.email, password: "correct horse battery" });
    assert.equal(ok.status, 200);
    assert.deepEqual(Object.keys(ok.body.data).sort(), [
      "deviceToken",
      "refreshToken",
      "token",
      "userId",
    ]);
    const bad = await request(app)
      .post("/auth/login")
      .send({ email: alice.email, password: "wrong password!" });
    assert.equal(bad.status, 401);
    assert.equal(bad.body.code, "unauthenticated");
    const injected = await request(app)
      .post("/auth/login")
      .send({ email: { $gt: "" }, password: "whatever1" });
    assert.equal(injected.status, 400);
  });

  test("me returns the caller without the password hash", async () => {
    const res = await request(app).get("/auth/me").set(bearer(alice));
    assert.equal(res.status, 200);
    assert.equal(res.body.data.id, alice.userId);
    assert.equal(res.body.data.email, alice.email);
    assert.equal(res.body.data.passwordHash, undefined);
    assert.equal((await request(app).get("/auth/me")).status, 401);
  });

  test("refresh_token issues a new pair; an access token is not a refresh token", async () => {
    // Refresh tokens are opaque and single-use (see test/auth/sessions.test.ts).
    assert.match(alice.refreshToken, /^trt_[\w-]{43}$/);
    const res = await request(app)
      .post("/auth/refresh_token")
      .send({ refreshToken: alice.refreshToken });
    assert.equal(res.status, 200);
    assert.ok(res.body.data.token);
    assert.match(res.body.data.refreshToken, /^trt_[\w-]{43}$/);
    assert.notEqual(res.body.data.refreshToken, alice.refreshToken);
    const wrongType = await request(app)
      .post("/auth/refresh_token")
      .send({ refreshToken: alice.token });
    assert.equal(wrongType.status, 401);
  });

  test("signup refuses privileged and unknown fields, and duplicate emails", async () => {
    const admin = await request(app)
      .post("/auth/signup")
      .send({ email: "mallory@example.com", password: "long enough pw", admin: true });
    assert.equal(admin.status, 400);
    assert.equal(admin.body.fields.admin, "is not an allowed field");
    assert.equal(await User.countDocuments({ email: "mallory@example.com" }), 0);
    const dup = await request(app)
      .post("/auth/signup")
      .send({ email: alice.email, password: "long enough pw" });
    assert.equal(dup.status, 409);
  });

  test("expired, forged, alg:none and refresh tokens are refused with 401 on every route", async () => {
    const expired = jwt.sign({ typ: "access" }, JWT_SECRET, {
      subject: alice.userId,
      expiresIn: -10,
    });
    const forged = jwt.sign({ typ: "access" }, "another-secret-entirely", {
      subject: alice.userId,
    });
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString("base64url")}.${Buffer.from(
      JSON.stringify({ sub: alice.userId, typ: "access" }),
    ).toString("base64url")}.`;
    for (const token of [expired, forged, none, alice.refreshToken, "garbage"]) {
      const res = await request(app).get("/todos").set("Authorization", `Bearer ${token}`);
      assert.equal(res.status, 401, token);
      assert.equal(res.body.code, "unauthenticated");
    }
    const malformedHeader = await request(app).get("/todos").set("Authorization", "Token abc");
    assert.equal(malformedHeader.status, 401);
  });

  test("a token without exp is refused: it would be valid forever (issue 24.6)", async () => {
    const forever = jwt.sign({ typ: "access" }, JWT_SECRET, { subject: alice.userId });
    for (const path of ["/todos", "/auth/me"]) {
      const res = await request(app).get(path).set("Authorization", `Bearer ${forever}`);
      assert.equal(res.status, 401, path);
      assert.match(res.body.detail, /expir/);
    }
  });

  test("signup: emails are NFKC-normalised; invisible and control characters are refused", async () => {
    const wide = await request(app)
      .post("/auth/signup")
      .send({ email: "\uff41dmin-wide@rt.test", password: "long enough pw" });
    assert.equal(wide.status, 201, JSON.stringify(wide.body));
    assert.equal(await User.countDocuments({ email: "admin-wide@rt.test" }), 1);
    // The lookalike of an existing address is that address: a duplicate, not a second account.
    const again = await request(app)
      .post("/auth/signup")
      .send({ email: "admin-wide@rt.\uff54est", password: "long enough pw" });
    assert.equal(again.status, 409);
    // And it signs in as the same account, however it is typed.
    const login = await request(app)
      .post("/auth/login")
      .send({ email: "\uff41dmin-wide@rt.test", password: "long enough pw" });
    assert.equal(login.status, 200);
    for (const email of [
      "admin\u200b@rt.test",
      "ad\u2060min@rt.test",
      "admin@rt.test\u0007",
      "\ufeffadmin@rt.test",
      "admin@r\u00adt.test",
      "admin\u202e@rt.test",
    ]) {
      const res = await request(app)
        .post("/auth/signup")
        .send({ email, password: "long enough pw" });
      assert.equal(res.status, 400, JSON.stringify(email));
      assert.match(res.body.fields.email, /invisible|control/);
    }
    assert.equal(await User.countDocuments({ email: /^admin@/ }), 0);
    const nul = await request(app)
      .post("/auth/signup")
      .send({ email: "nul@rt.test", password: "long enough pw", name: "a\u0000b" });
    assert.equal(nul.status, 400);
    assert.match(nul.body.fields.name, /NUL/);
  });
});

describe("GET /auth/me through the user model's view", () => {
  // Fields hidden by the schema, under names no secret-name list would catch, and a query hook
  // of the app's own that always loads them: only the view keeps them from leaving.
  const staffSchema = new Schema(
    {
      name: String,
      recoveryPin: { type: String, select: false },
      profile: { city: String, backupCode: { type: String, select: false } },
    },
    { timestamps: true },
  ).plugin(authUserPlugin);
  staffSchema.pre("findOne", function () {
    this.select("+recoveryPin +profile.backupCode");
  });
  const Staff = mongoose.models.MeStaff ?? mongoose.model("MeStaff", staffSchema);

  test("select: false fields never leave, however the document was loaded", async () => {
    const app = new TerrenoApp({ userModel: Staff, auth: { jwt: { secret: JWT_SECRET } } }).build();
    const staff = await signUp(app, "sam");
    await Staff.updateOne(
      { _id: staff.userId },
      { $set: { recoveryPin: "4921", profile: { city: "Oslo", backupCode: "kq-77" } } },
    ).exec();
    const loaded = await Staff.findById(staff.userId).lean<PlainObject>().exec();
    assert.equal(loaded?.recoveryPin, "4921", "the app's hook loads the hidden field");

    const res = await request(app).get("/auth/me").set(bearer(staff));
    assert.equal(res.status, 200);
    assert.equal(res.body.data.id, staff.userId);
    assert.deepEqual(res.body.data.profile, { city: "Oslo" });
    assert.doesNotMatch(JSON.stringify(res.body), /recoveryPin|4921|backupCode|kq-77|passwordHash/);
  });
});
