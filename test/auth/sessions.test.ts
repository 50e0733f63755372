/**
 * Revocable refresh sessions through real HTTP: single-use rotation, reuse detection revoking
 * the family, logout, password change and disabling a user, and two app instances sharing the
 * state through MongoDB.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { before, describe, test } from "node:test";
import type { Express } from "express";
import jwt from "jsonwebtoken";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { hashPassword } from "../../src/auth/password.js";
import {
  ensureRefreshTokenIndexes,
  REFRESH_TOKEN_COLLECTION,
  refreshTokenModel,
  revokeUserSessions,
} from "../../src/auth/sessions.js";
import { bearer, PASSWORD, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { User } from "../helpers/models.js";
import { buildRestApp, JWT_SECRET } from "../helpers/restApp.js";

useTestDatabase("auth_sessions");

const TOKEN_SHAPE = /^trt_[A-Za-z0-9_-]{43}$/;

function refresh(app: Express, refreshToken: string) {
  return request(app).post("/auth/refresh_token").send({ refreshToken });
}

/** POST /auth/logout as `user` (anonymous when undefined) with `body`. */
function logout(app: Express, user: TestUser | undefined, body?: Record<string, unknown>) {
  const req = request(app).post("/auth/logout");
  const sent = user ? req.set(bearer(user)) : req;
  return body === undefined ? sent : sent.send(body);
}

async function login(app: Express, email: string, password = PASSWORD): Promise<TestUser> {
  const res = await request(app).post("/auth/login").send({ email, password });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { ...res.body.data, email };
}

describe("refresh sessions", () => {
  let app: Express;

  before(() => {
    app = buildRestApp();
  });

  test("a refresh token works once; reusing it revokes the whole family", async () => {
    const alice = await signUp(app, "rotate");
    assert.match(alice.refreshToken, TOKEN_SHAPE);

    const first = await refresh(app, alice.refreshToken);
    assert.equal(first.status, 200);
    const r1: string = first.body.data.refreshToken;
    assert.match(r1, TOKEN_SHAPE);
    assert.notEqual(r1, alice.refreshToken);
    assert.equal(first.body.data.userId, alice.userId);
    // The new access token works.
    const me = await request(app)
      .get("/auth/me")
      .set("Authorization", `Bearer ${first.body.data.token}`);
    assert.equal(me.status, 200);

    const reuse = await refresh(app, alice.refreshToken);
    assert.equal(reuse.status, 401);
    assert.equal(reuse.body.code, "unauthenticated");
    assert.match(reuse.body.detail, /already used/);

    // R1 was never used, but it belongs to the family the reuse revoked.
    const afterReuse = await refresh(app, r1);
    assert.equal(afterReuse.status, 401);
    assert.match(afterReuse.body.detail, /revoked/);
  });

  test("only hashes are stored, with a unique index and a TTL index", async () => {
    const bob = await signUp(app, "stored");
    const Tokens = refreshTokenModel(User.db);
    const record = await Tokens.findOne({ userId: bob.userId }).lean<Record<string, unknown>>();
    assert.ok(record);
    const expected = createHash("sha256").update(bob.refreshToken).digest("hex");
    assert.equal(record.tokenHash, expected);
    assert.doesNotMatch(JSON.stringify(record), new RegExp(bob.refreshToken.slice(4)));
    const lifetime = (record.expiresAt as Date).getTime() - Date.now();
    assert.ok(Math.abs(lifetime - 30 * 24 * 3600 * 1000) < 60_000, `lifetime ${lifetime}`);

    await ensureRefreshTokenIndexes(User.db);
    const indexes = await User.db.collection(REFRESH_TOKEN_COLLECTION).indexes();
    const byKey = (key: string) => indexes.find((index) => Object.keys(index.key)[0] === key);
    assert.equal(byKey("tokenHash")?.unique, true);
    assert.equal(byKey("rotatedFrom")?.unique, true);
    assert.ok(byKey("userId") && byKey("familyId"));
    // A TTL index on MongoDB; FerretDB v1 refuses `expireAfterSeconds`, so a plain index there.
    const expiry = byKey("expiresAt");
    assert.ok(expiry);
    if (expiry.expireAfterSeconds !== undefined) assert.equal(expiry.expireAfterSeconds, 0);
    const declared = Tokens.schema.indexes().find(([fields]) => "expiresAt" in fields);
    assert.equal(declared?.[1].expireAfterSeconds, 0);
  });

  test("other sessions of the same user survive a reuse in one family", async () => {
    const carol = await signUp(app, "families");
    const laptop = await login(app, carol.email);
    assert.equal((await refresh(app, carol.refreshToken)).status, 200);
    assert.equal((await refresh(app, carol.refreshToken)).status, 401); // reuse: family 1 dies
    const other = await refresh(app, laptop.refreshToken);
    assert.equal(other.status, 200);
    assert.equal((await refresh(app, other.body.data.refreshToken)).status, 200);
  });

  test("racing refreshes with one token: at most one wins, and the reuse revokes the winner too", async () => {
    const dave = await signUp(app, "race");
    const results = await Promise.all(
      Array.from({ length: 6 }, () => refresh(app, dave.refreshToken)),
    );
    const statuses = results.map((res) => res.status);
    // MongoDB's conditional update lets exactly one through; under load FerretDB's is not
    // atomic, and the unique successor index then fails the race closed (all 401). Either
    // way no two sessions come out of one token, and the family ends.
    assert.ok(
      statuses.every((status) => status === 200 || status === 401),
      String(statuses),
    );
    assert.ok(statuses.filter((status) => status === 200).length <= 1, String(statuses));
    for (const winner of results.filter((res) => res.status === 200)) {
      assert.equal((await refresh(app, winner.body.data.refreshToken)).status, 401);
    }
    assert.equal((await refresh(app, dave.refreshToken)).status, 401);
  });

  test("an expired, unknown, malformed or legacy JWT refresh token is 401", async () => {
    const erin = await signUp(app, "expired");
    const hash = createHash("sha256").update(erin.refreshToken).digest("hex");
    // Past its expiry but not yet deleted (the TTL monitor runs once a minute; FerretDB v1 never).
    await refreshTokenModel(User.db).updateOne(
      { tokenHash: hash },
      { $set: { expiresAt: new Date(Date.now() - 1000) } },
    );
    const expired = await refresh(app, erin.refreshToken);
    assert.equal(expired.status, 401);
    assert.match(expired.body.detail, /expired/);

    const legacy = jwt.sign({ typ: "refresh" }, JWT_SECRET, {
      algorithm: "HS256",
      subject: erin.userId,
      expiresIn: 3600,
    });
    const unknown = `trt_${"A".repeat(43)}`;
    for (const token of [legacy, unknown, "trt_short", erin.token]) {
      const res = await refresh(app, token);
      assert.equal(res.status, 401, token);
      assert.equal(res.body.code, "unauthenticated");
    }
    const missing = await request(app).post("/auth/refresh_token").send({});
    assert.equal(missing.status, 400);
    assert.ok(missing.body.fields.refreshToken);
  });

  describe("logout", () => {
    test("with a refresh token: that session ends, the others stay", async () => {
      const frank = await signUp(app, "logout");
      const phone = await login(app, frank.email);
      const res = await logout(app, frank, { refreshToken: frank.refreshToken });
      assert.equal(res.status, 204);
      assert.equal(res.headers["cache-control"], "no-store");
      assert.equal((await refresh(app, frank.refreshToken)).status, 401);
      assert.equal((await refresh(app, phone.refreshToken)).status, 200);
    });

    test("a rotated token's family ends too, whichever token of it is presented", async () => {
      const gina = await signUp(app, "logoutfamily");
      const next = await refresh(app, gina.refreshToken);
      // The spent R0 still names the family: logging out with it ends R1's session.
      const res = await logout(app, gina, { refreshToken: gina.refreshToken });
      assert.equal(res.status, 204);
      assert.equal((await refresh(app, next.body.data.refreshToken)).status, 401);
    });

    test("without a refresh token: every session of the caller ends", async () => {
      const hank = await signUp(app, "logoutall");
      const tablet = await login(app, hank.email);
      const other = await signUp(app, "bystander");
      const res = await logout(app, hank);
      assert.equal(res.status, 204);
      assert.equal((await refresh(app, hank.refreshToken)).status, 401);
      assert.equal((await refresh(app, tablet.refreshToken)).status, 401);
      assert.equal((await refresh(app, other.refreshToken)).status, 200);
    });

    test("someone else's refresh token is left alone; bad bodies and anonymous callers refused", async () => {
      const ivy = await signUp(app, "ivy");
      const jack = await signUp(app, "jack");
      const res = await logout(app, ivy, { refreshToken: jack.refreshToken });
      assert.equal(res.status, 204);
      assert.equal((await refresh(app, jack.refreshToken)).status, 200);

      const anonymous = await logout(app, undefined, { refreshToken: ivy.refreshToken });
      assert.equal(anonymous.status, 401);
      const unknownField = await logout(app, ivy, { everything: true });
      assert.equal(unknownField.status, 400);
      assert.equal(unknownField.body.fields.everything, "is not an allowed field");
      const notString = await logout(app, ivy, { refreshToken: { $ne: null } });
      assert.equal(notString.status, 400);
      assert.equal((await refresh(app, ivy.refreshToken)).status, 200);
    });
  });

  describe("password change and disabling revoke every session", () => {
    test("POST /auth/password: checks the current password, revokes all, starts a new session", async () => {
      const kim = await signUp(app, "password");
      const second = await login(app, kim.email);
      const wrong = await request(app)
        .post("/auth/password")
        .set(bearer(kim))
        .send({ currentPassword: "not my password", newPassword: "a brand new secret" });
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.fields.currentPassword, "is incorrect");
      // A failed attempt changes nothing.
      const stillValid = await refresh(app, second.refreshToken);
      assert.equal(stillValid.status, 200);

      const anonymous = await request(app)
        .post("/auth/password")
        .send({ currentPassword: PASSWORD, newPassword: "a brand new secret" });
      assert.equal(anonymous.status, 401);

      const ok = await request(app)
        .post("/auth/password")
        .set(bearer(kim))
        .send({ currentPassword: PASSWORD, newPassword: "a brand new secret" });
      assert.equal(ok.status, 200);
      assert.equal(ok.headers["cache-control"], "no-store");
      assert.match(ok.body.data.refreshToken, TOKEN_SHAPE);
      assert.equal((await refresh(app, kim.refreshToken)).status, 401);
      assert.equal((await refresh(app, stillValid.body.data.refreshToken)).status, 401);
      assert.equal(
        (await request(app).post("/auth/login").send({ email: kim.email, password: PASSWORD }))
          .status,
        401,
      );
      await login(app, kim.email, "a brand new secret");
      assert.equal((await refresh(app, ok.body.data.refreshToken)).status, 200);
    });

    test("a password hash changed through the model (save or updateOne) revokes them", async () => {
      const leo = await signUp(app, "modelpw");
      const doc = await User.findById(leo.userId).orFail();
      doc.set("passwordHash", await hashPassword("changed by an admin"));
      await doc.save();
      assert.equal((await refresh(app, leo.refreshToken)).status, 401);

      const fresh = await login(app, leo.email, "changed by an admin");
      await User.updateOne(
        { _id: leo.userId },
        { $set: { passwordHash: await hashPassword("changed again!") } },
      );
      assert.equal((await refresh(app, fresh.refreshToken)).status, 401);
    });

    test("disabling a user through any write revokes them; re-enabling does not revive them", async () => {
      const mia = await signUp(app, "disable");
      // `+passwordHash` only because FerretDB v1 refuses findAndModify with a projection.
      await User.findByIdAndUpdate(mia.userId, { disabled: true }).select("+passwordHash");
      await User.findByIdAndUpdate(mia.userId, { disabled: false }).select("+passwordHash");
      assert.equal((await refresh(app, mia.refreshToken)).status, 401);

      const ned = await signUp(app, "disablesave");
      const doc = await User.findById(ned.userId).orFail();
      doc.set("disabled", true);
      await doc.save();
      await User.updateOne({ _id: ned.userId }, { $set: { disabled: false } });
      assert.equal((await refresh(app, ned.refreshToken)).status, 401);

      const olga = await signUp(app, "disablemany");
      await User.updateMany({ _id: { $in: [olga.userId] } }, { $set: { disabled: true } });
      await User.updateMany({ _id: { $in: [olga.userId] } }, { $set: { disabled: false } });
      assert.equal((await refresh(app, olga.refreshToken)).status, 401);
    });

    test("a refresh for a user disabled without the hook is still refused", async () => {
      const pat = await signUp(app, "rawdisable");
      // The raw driver bypasses Mongoose middleware.
      await User.collection.updateOne(
        { _id: new User.base.Types.ObjectId(pat.userId) },
        {
          $set: { disabled: true },
        },
      );
      assert.equal((await refresh(app, pat.refreshToken)).status, 401);
      await User.collection.updateOne(
        { _id: new User.base.Types.ObjectId(pat.userId) },
        {
          $set: { disabled: false },
        },
      );
      // The refused refresh spent the token and revoked its family.
      assert.equal((await refresh(app, pat.refreshToken)).status, 401);
    });

    test("other updates leave sessions alone; revokeUserSessions ends them on demand", async () => {
      const quinn = await signUp(app, "unrelated");
      await User.updateOne({ _id: quinn.userId }, { $set: { name: "Quinn" } });
      const doc = await User.findById(quinn.userId).orFail();
      doc.set("name", "Quinn Q");
      await doc.save();
      const next = await refresh(app, quinn.refreshToken);
      assert.equal(next.status, 200);
      // Marks the live token and the spent one (kept as its family's marker) revoked.
      assert.equal(await revokeUserSessions(quinn.userId, User.db), 2);
      assert.equal((await refresh(app, next.body.data.refreshToken)).status, 401);
    });
  });

  test("two app instances share the session state through MongoDB", async () => {
    const appA = buildRestApp();
    const appB = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } }).build();
    const rita = await signUp(appA, "instances");

    const onB = await refresh(appB, rita.refreshToken);
    assert.equal(onB.status, 200);
    const onA = await refresh(appA, onB.body.data.refreshToken);
    assert.equal(onA.status, 200);
    // The token B already spent is refused on A, and that reuse kills A's fresh token on B.
    assert.equal((await refresh(appA, rita.refreshToken)).status, 401);
    assert.equal((await refresh(appB, onA.body.data.refreshToken)).status, 401);

    // A race across instances: one winner.
    const sam = await signUp(appB, "instancerace");
    const raced = await Promise.all([
      refresh(appA, sam.refreshToken),
      refresh(appB, sam.refreshToken),
      refresh(appA, sam.refreshToken),
      refresh(appB, sam.refreshToken),
    ]);
    // At most one: FerretDB's conditional update is not atomic under load and fails closed.
    assert.ok(raced.filter((res) => res.status === 200).length <= 1);

    // Logout on one instance ends the session on the other.
    const tom = await signUp(appA, "instancelogout");
    const out = await logout(appB, tom, { refreshToken: tom.refreshToken });
    assert.equal(out.status, 204);
    assert.equal((await refresh(appA, tom.refreshToken)).status, 401);
  });
});
