/**
 * Lockout counters under concurrent guesses (issue 33.2): a burst of wrong passwords sent at
 * once, with a device token, from one address, or spread over addresses, is judged at most up
 * to the limit; the rest are refused before their password is checked, and the right password
 * right after is refused while the lock holds.
 *
 * The bursts are split over TWO TerrenoApp builds on one database (two instances, as two
 * servers would be), on the suite's database: FerretDB 1.x unless MONGODB_URI is set, over
 * Mongoose's default pool (up to 100 connections). FerretDB does not isolate concurrent updates
 * across connections, so these counts are exact only because an attempt is claimed by a unique
 * insert (src/ops/claimCounter.ts) before the password is checked; on MongoDB likewise.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Express } from "express";
import { loginFrom, PASSWORD, signUp } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { lockoutApp } from "../helpers/restApp.js";

useTestDatabase("auth_login_race");

const WRONG = "wrong horse battery";

// The production thresholds; no per-IP request limit, so what refuses is the lockout.
const instance = () => lockoutApp({ maxFailures: 5, maxAccountFailures: 20 });

const first = instance();
const second = instance();

function login(
  app: Express,
  email: string,
  password: string,
  { ip = "203.0.113.1", deviceToken }: { ip?: string; deviceToken?: string } = {},
) {
  return loginFrom(app, ip, email, password, { deviceToken });
}

/** Sends `count` logins at once, alternating between the two instances; their statuses. */
async function burst(
  count: number,
  send: (app: Express, i: number) => ReturnType<typeof login>,
): Promise<number[]> {
  const responses = await Promise.all(
    Array.from({ length: count }, (_, i) => send(i % 2 === 0 ? first : second, i)),
  );
  return responses.map((res) => res.status);
}

const tally = (statuses: number[]) => ({
  judged: statuses.filter((status) => status === 401).length,
  refused: statuses.filter((status) => status === 429).length,
  other: statuses.filter((status) => status !== 401 && status !== 429),
});

describe("lockout counters under concurrent guesses, over two instances", () => {
  test("15 guesses at once with a device token lock the device at 5; the right password is then refused", async () => {
    const owner = await signUp(first, "device-burst");
    const deviceToken: string = (await login(first, owner.email, PASSWORD)).body.data.deviceToken;
    assert.match(deviceToken, /^tdv_/);
    const statuses = await burst(15, (app) => login(app, owner.email, WRONG, { deviceToken }));
    const { judged, refused, other } = tally(statuses);
    assert.deepEqual(other, [], `${statuses}`);
    assert.equal(judged, 5, `${statuses}`);
    assert.equal(refused, 10, `${statuses}`);
    for (const app of [first, second]) {
      const right = await login(app, owner.email, PASSWORD, { deviceToken });
      assert.equal(right.status, 429, JSON.stringify(right.body));
      assert.equal(right.body.data, undefined);
    }
  });

  test('an address the proxy header makes unparseable ("1|1") is counted like any other', async () => {
    // proxy-addr hands an unparseable X-Forwarded-For through as req.ip; a claim name with the
    // claims' separator was refused, and the lockout then let every guess through uncounted.
    const owner = await signUp(first, "odd-ip-burst");
    const statuses = await burst(12, (app) => login(app, owner.email, WRONG, { ip: "1|1" }));
    const { judged, refused, other } = tally(statuses);
    assert.deepEqual(other, [], `${statuses}`);
    assert.equal(judged, 5, `${statuses}`);
    assert.equal(refused, 7, `${statuses}`);
  });

  test("12 guesses at once from one address: at most 5 are judged, then the address is locked", async () => {
    const owner = await signUp(first, "ip-burst");
    const statuses = await burst(12, (app) =>
      login(app, owner.email, WRONG, { ip: "203.0.113.7" }),
    );
    const { judged, refused, other } = tally(statuses);
    assert.deepEqual(other, [], `${statuses}`);
    assert.equal(judged, 5, `${statuses}`);
    assert.equal(refused, 7, `${statuses}`);
    const right = await login(second, owner.email, PASSWORD, { ip: "203.0.113.7" });
    assert.equal(right.status, 429);
    // Elsewhere the account is not locked: 5 failures are under the account-wide 20.
    assert.equal((await login(first, owner.email, PASSWORD, { ip: "198.51.100.3" })).status, 200);
  });

  test("40 guesses at once over 10 addresses: at most 20 are judged, then the account is locked everywhere", async () => {
    const owner = await signUp(first, "account-burst");
    // 4 per address, under the per-address 5, so only the account-wide 20 can refuse.
    const statuses = await burst(40, (app, i) =>
      login(app, owner.email, WRONG, { ip: `203.0.113.${100 + (i % 10)}` }),
    );
    const { judged, refused, other } = tally(statuses);
    assert.deepEqual(other, [], `${statuses}`);
    assert.equal(judged, 20, `${statuses}`);
    assert.equal(refused, 20, `${statuses}`);
    const right = await login(second, owner.email, PASSWORD, { ip: "198.51.100.4" });
    assert.equal(right.status, 429);
  });

  test("unknown emails lock the same way (no hint which accounts exist)", async () => {
    const email = `nobody-burst-${Date.now()}@example.com`;
    const statuses = await burst(12, (app) => login(app, email, WRONG, { ip: "203.0.113.9" }));
    assert.equal(tally(statuses).judged, 5, `${statuses}`);
  });

  test("a right password in a burst refunds the claims: the account's counters start over", async () => {
    const owner = await signUp(first, "refund");
    for (let i = 0; i < 4; i++) {
      assert.equal((await login(first, owner.email, WRONG, { ip: "203.0.113.20" })).status, 401);
    }
    assert.equal((await login(second, owner.email, PASSWORD, { ip: "203.0.113.20" })).status, 200);
    const statuses = await burst(4, (app) =>
      login(app, owner.email, WRONG, { ip: "203.0.113.20" }),
    );
    assert.deepEqual(statuses, [401, 401, 401, 401]);
  });
});
