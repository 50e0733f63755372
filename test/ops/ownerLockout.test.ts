/**
 * The lockout an attacker cannot hold (issue 24.1, OWASP's device cookie): an attacker rotating
 * 127.0.0.x addresses sends one wrong password per lock period, forever relocking the account;
 * the owner, presenting the device token of an earlier login, signs in every time, and without
 * it still waits. A correct password never lengthens a lock.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { Express } from "express";
import request from "supertest";
import { loginFrom, PASSWORD, signUp } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { lockoutApp } from "../helpers/restApp.js";

useTestDatabase("ops_owner_lockout");

const WRONG = "wrong horse battery";

// Short locks, so the test can wait one out (long enough for a loaded machine to answer the
// owner's logins inside one); the shape is the production one.
const buildApp = () =>
  lockoutApp({ maxFailures: 2, maxAccountFailures: 4, lockSeconds: 10, maxLockSeconds: 10 });

let next = 2;
/** A fresh 127.0.0.x source address per request, as an attacker with many addresses has. */
const rotatingIp = () => `127.0.0.${next++ % 250 || 1}`;

/** A login from a fresh address unless `ip` is given. */
function login(
  app: Express,
  email: string,
  password: string,
  { ip = rotatingIp(), ...rest }: { ip?: string; deviceToken?: string; cookie?: string } = {},
) {
  return loginFrom(app, ip, email, password, rest);
}

describe("a lockout that protects the owner", () => {
  const app = buildApp();

  test("a login returns a device token, in the JSON and as an HttpOnly cookie", async () => {
    const user = await signUp(app, "device");
    const res = await login(app, user.email, PASSWORD);
    assert.equal(res.status, 200);
    assert.match(res.body.data.deviceToken, /^tdv_[A-Za-z0-9_-]{43}$/);
    const cookie = String(res.headers["set-cookie"]);
    assert.match(cookie, new RegExp(`terreno_device=${res.body.data.deviceToken}`));
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
  });

  test("an attacker rotating addresses, one failure per lock period, never locks the owner out", async () => {
    const owner = await signUp(app, "owner");
    const first = await login(app, owner.email, PASSWORD);
    const deviceToken: string = first.body.data.deviceToken;
    const cookie = `terreno_device=${deviceToken}`;

    // The attacker spreads failures over addresses until the account is locked for everyone.
    let attempts = 0;
    let lastRes = await login(app, owner.email, WRONG);
    while (lastRes.status === 401) {
      attempts += 1;
      lastRes = await login(app, owner.email, WRONG);
    }
    assert.equal(lastRes.status, 429);
    assert.equal(attempts, 4, "maxAccountFailures");

    for (let round = 0; round < 2; round++) {
      // The owner with the device token signs in during the lock (the body form), and right
      // after, without it, waits: the lock was in force, and the right password does not
      // lengthen it. Then the cookie form, then again without.
      const waits: number[] = [];
      const withoutDevice = async () => {
        const res = await login(app, owner.email, PASSWORD);
        assert.equal(res.status, 429, `round ${round}: no device token (${res.status})`);
        waits.push(Number(res.headers["retry-after"]));
      };
      const withBody = await login(app, owner.email, PASSWORD, { deviceToken });
      assert.equal(withBody.status, 200, `round ${round}: ${JSON.stringify(withBody.body)}`);
      assert.ok(withBody.body.data.token);
      assert.equal(withBody.body.data.deviceToken, deviceToken);
      await withoutDevice();
      const withCookie = await login(app, owner.email, PASSWORD, { cookie });
      assert.equal(withCookie.status, 200, `round ${round} (cookie)`);
      await withoutDevice();
      await withoutDevice();
      for (let i = 1; i < waits.length; i++) assert.ok(waits[i] <= waits[i - 1], `${waits}`);

      // The attacker waits the lock out, then spends one failure: locked again.
      const retryAfter = Number((await login(app, owner.email, PASSWORD)).headers["retry-after"]);
      await sleep(retryAfter * 1000 + 100);
      const relock = await login(app, owner.email, WRONG);
      assert.equal(relock.status, 401, `round ${round}: the attacker's one failure`);
      assert.equal((await login(app, owner.email, PASSWORD)).status, 429);
    }
  });

  test("a device has its own counter: its failures lock it, not the account", async () => {
    const owner = await signUp(app, "ownfail");
    const deviceToken: string = (await login(app, owner.email, PASSWORD)).body.data.deviceToken;
    const ip = rotatingIp();
    for (let i = 0; i < 2; i++) {
      assert.equal((await login(app, owner.email, WRONG, { deviceToken, ip })).status, 401);
    }
    assert.equal((await login(app, owner.email, PASSWORD, { deviceToken, ip })).status, 429);
    // Everyone else is unaffected: the account has no failures.
    assert.equal((await login(app, owner.email, PASSWORD, { ip })).status, 200);
  });

  test("a device token of another account is no device token", async () => {
    const victim = await signUp(app, "victim");
    const attacker = await signUp(app, "attacker");
    const attackerDevice: string = (await login(app, attacker.email, PASSWORD)).body.data
      .deviceToken;
    let failures = 0;
    while (
      (await login(app, victim.email, WRONG, { deviceToken: attackerDevice })).status === 401
    ) {
      failures += 1;
    }
    assert.equal(failures, 4, "the account-wide lock applies");
    const res = await login(app, victim.email, PASSWORD, { deviceToken: attackerDevice });
    assert.equal(res.status, 429);
  });

  test("a password change ends the other devices' tokens; the device that changed it gets a new one", async () => {
    const NEW_PASSWORD = "a brand new horse battery";
    const owner = await signUp(app, "changer");
    const laptop: string = (await login(app, owner.email, PASSWORD)).body.data.deviceToken;
    const phoneLogin = await login(app, owner.email, PASSWORD);
    const phone: string = phoneLogin.body.data.deviceToken;
    const changed = await request(app)
      .post("/auth/password")
      .set("Authorization", `Bearer ${phoneLogin.body.data.token}`)
      .send({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    const renewed: string = changed.body.data.deviceToken;
    assert.match(renewed, /^tdv_/);

    // Someone locks the account for everyone without a known device.
    while ((await login(app, owner.email, WRONG)).status === 401) {}
    assert.equal((await login(app, owner.email, NEW_PASSWORD)).status, 429);
    // The laptop's token (from before the change) is no device token any more: it waits too.
    const withLaptop = await login(app, owner.email, NEW_PASSWORD, { deviceToken: laptop });
    assert.equal(withLaptop.status, 429, JSON.stringify(withLaptop.body));
    const withOldPhone = await login(app, owner.email, NEW_PASSWORD, { deviceToken: phone });
    assert.equal(withOldPhone.status, 429, JSON.stringify(withOldPhone.body));
    // The token the change handed out is a known device: it signs in during the lock.
    const withRenewed = await login(app, owner.email, NEW_PASSWORD, { deviceToken: renewed });
    assert.equal(withRenewed.status, 200, JSON.stringify(withRenewed.body));
  });
});
