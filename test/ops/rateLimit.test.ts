/**
 * Rate limits over real HTTP: the login lockout (per account and IP, per account), the auth
 * routes' per-IP limit, REST write limits with per-router overrides, and the off default.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { clientIp, createRateLimit, type RateLimitOptions } from "../../src/ops/rateLimit.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { bearer, PASSWORD, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { Food, Todo, User } from "../helpers/models.js";
import { foodOptions, JWT_SECRET, todoOptions } from "../helpers/restApp.js";

useTestDatabase("ops_rate_limit");

const WRONG = "wrong horse battery";

function buildApp(
  rateLimit: RateLimitOptions | false | undefined,
  routers: {
    todo?: Parameters<typeof todoOptions>[0];
    food?: Parameters<typeof foodOptions>[0];
  } = {},
): Express {
  return new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } }, rateLimit })
    .register(modelRouter(Todo, todoOptions(routers.todo)))
    .register(modelRouter(Food, foodOptions(routers.food)))
    .build();
}

const login = (app: Express, email: string, password: string, ip?: string) => {
  const req = request(app).post("/auth/login");
  if (ip) req.set("X-Forwarded-For", ip);
  return req.send({ email, password });
};

function assertRateLimited(res: request.Response, detail?: RegExp): number {
  assert.equal(res.status, 429, JSON.stringify(res.body));
  assert.equal(res.body.code, "rate_limited");
  assert.equal(res.body.status, 429);
  assert.match(res.headers["retry-after"] ?? "", /^[1-9][0-9]*$/);
  if (detail) assert.match(res.body.detail, detail);
  return Number(res.headers["retry-after"]);
}

describe("login lockout", () => {
  // A high per-IP limit, so what refuses below is the account lockout.
  const app = buildApp({ auth: { perIp: { points: 1000, duration: 60 } } });

  test("40 wrong passwords, then the right one: 429 while locked, the lock never growing", async () => {
    const user = await signUp(app, "locked");
    const statuses: number[] = [];
    const retryAfters: number[] = [];
    for (let i = 0; i < 40; i++) {
      const res = await login(app, user.email, WRONG);
      statuses.push(res.status);
      if (res.status === 429) {
        retryAfters.push(assertRateLimited(res, /failed logins for this account/));
      }
    }
    // Five failures are answered as such; from the sixth attempt on, the account is locked.
    assert.deepEqual(statuses.slice(0, 5), [401, 401, 401, 401, 401]);
    assert.ok(statuses.slice(5).every((status) => status === 429));
    // Attempts while locked never lengthen the lock (issue 24.1: they used to double it, up to
    // an hour, so one request per lock period kept the owner out): it counts down from 60 s.
    assert.ok(retryAfters[0] <= 60, `${retryAfters[0]}`);
    for (let i = 1; i < retryAfters.length; i++) assert.ok(retryAfters[i] <= retryAfters[i - 1]);

    const right = await login(app, user.email, PASSWORD);
    assertRateLimited(right, /failed logins for this account/);
    assert.equal(right.body.token, undefined);
    assert.equal(right.body.data, undefined);
  });

  test("a successful login resets the account's failures", async () => {
    const user = await signUp(app, "resets");
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 4; i++) assert.equal((await login(app, user.email, WRONG)).status, 401);
      const ok = await login(app, user.email, PASSWORD);
      assert.equal(ok.status, 200);
      assert.ok(ok.body.data.token);
    }
  });

  test("unknown accounts are counted too (no hint which emails exist)", async () => {
    const email = `nobody-${Date.now()}@example.com`;
    for (let i = 0; i < 5; i++) assert.equal((await login(app, email, WRONG)).status, 401);
    assertRateLimited(await login(app, email, WRONG), /failed logins/);
  });
});

describe("login lockout per account and IP, and per account", () => {
  const app = buildApp({
    auth: { perIp: false, lockout: { maxFailures: 3, maxAccountFailures: 6 } },
  });
  // Lets the tests speak from several addresses.
  app.set("trust proxy", true);

  test("failures from one address lock the account there only", async () => {
    const user = await signUp(app, "perip");
    for (let i = 0; i < 3; i++) {
      assert.equal((await login(app, user.email, WRONG, "203.0.113.1")).status, 401);
    }
    assertRateLimited(await login(app, user.email, PASSWORD, "203.0.113.1"));
    // The owner, elsewhere, still signs in.
    assert.equal((await login(app, user.email, PASSWORD, "198.51.100.7")).status, 200);
  });

  test("failures spread over addresses lock the account everywhere", async () => {
    const user = await signUp(app, "spread");
    for (const ip of ["203.0.113.10", "203.0.113.11", "203.0.113.12"]) {
      for (let i = 0; i < 2; i++)
        assert.equal((await login(app, user.email, WRONG, ip)).status, 401);
    }
    assertRateLimited(await login(app, user.email, PASSWORD, "198.51.100.99"), /failed logins/);
  });
});

describe("auth routes per IP", () => {
  const app = buildApp({ auth: { perIp: { points: 3, duration: 60 }, lockout: false } });

  test("signup, login and refresh share one per-IP budget; then 429 with Retry-After", async () => {
    const user = await signUp(app, "budget"); // 1
    assert.equal((await login(app, user.email, PASSWORD)).status, 200); // 2
    const refreshed = await request(app)
      .post("/auth/refresh_token")
      .send({ refreshToken: user.refreshToken }); // 3
    assert.equal(refreshed.status, 200);
    const refused = await request(app)
      .post("/auth/signup")
      .send({ email: `late-${Date.now()}@example.com`, password: PASSWORD });
    const seconds = assertRateLimited(refused, /auth routes from this address/);
    assert.ok(seconds <= 60);
    assertRateLimited(await login(app, user.email, PASSWORD));
    // Other routes are not part of that budget.
    const me = await request(app).get("/auth/me").set(bearer(user));
    assert.equal(me.status, 200);
  });
});

describe("REST writes", () => {
  const app = buildApp(
    { writes: { points: 3, duration: 60 } },
    { food: { rateLimit: { points: 5, duration: 60 } } },
  );
  let ada: TestUser;
  let bob: TestUser;
  before(async () => {
    ada = await signUp(app, "ada");
    bob = await signUp(app, "bob");
  });

  test("POST, PATCH and DELETE spend the caller's points; reads do not", async () => {
    const created = await request(app).post("/todos").set(bearer(ada)).send({ title: "one" });
    assert.equal(created.status, 201);
    const id = created.body.data.id;
    assert.equal(
      (await request(app).patch(`/todos/${id}`).set(bearer(ada)).send({ title: "two" })).status,
      200,
    );
    assert.equal((await request(app).delete(`/todos/${id}`).set(bearer(ada))).status, 204);
    for (let i = 0; i < 3; i++) {
      assert.equal((await request(app).get("/todos").set(bearer(ada))).status, 200);
    }
    const refused = await request(app).post("/todos").set(bearer(ada)).send({ title: "four" });
    const seconds = assertRateLimited(refused, /Too many writes/);
    assert.ok(seconds >= 1 && seconds <= 60);
    // Nothing was written.
    const list = await request(app).get("/todos").set(bearer(ada));
    assert.equal(list.body.total, 0);
    // Another caller has their own points.
    assert.equal(
      (await request(app).post("/todos").set(bearer(bob)).send({ title: "bob's" })).status,
      201,
    );
  });

  test("a router's own rateLimit replaces the app's, in a bucket of its own", async () => {
    // ada spent all 3 app-wide write points above; foods have their own 5.
    for (let i = 0; i < 5; i++) {
      const res = await request(app)
        .post("/foods")
        .set(bearer(ada))
        .send({ name: `food-${i}-${Date.now()}`, calories: 1 });
      assert.equal(res.status, 201);
    }
    assertRateLimited(
      await request(app)
        .post("/foods")
        .set(bearer(ada))
        .send({ name: `x-${Date.now()}` }),
    );
  });
});

describe("rateLimit: false on a router", () => {
  const app = buildApp({ writes: { points: 1, duration: 60 } }, { todo: { rateLimit: false } });

  test("exempts its writes", async () => {
    const ada = await signUp(app, "exempt");
    for (let i = 0; i < 4; i++) {
      const res = await request(app)
        .post("/todos")
        .set(bearer(ada))
        .send({ title: `t${i}` });
      assert.equal(res.status, 201);
    }
  });
});

describe("off by default", () => {
  const app = buildApp(undefined, { todo: {} });

  test("no auth or write limits without the rateLimit option", async () => {
    const ada = await signUp(app, "nolimits");
    for (let i = 0; i < 8; i++) assert.equal((await login(app, ada.email, WRONG)).status, 401);
    assert.equal((await login(app, ada.email, PASSWORD)).status, 200);
    for (let i = 0; i < 35; i++) {
      assert.equal((await request(app).post("/auth/login").send({})).status, 400);
    }
  });
});

describe("named limiters for plugins", () => {
  test("app.rateLimiter: a chat-style bucket (10 at once) with Retry-After", async () => {
    const terreno = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } });
    const chat = terreno.rateLimiter("chat", { points: 10, duration: 10 });
    assert.equal(terreno.rateLimiter("chat", { points: 10, duration: 10 }), chat);
    assert.throws(() => terreno.rateLimiter("chat", { points: 5, duration: 10 }), /another window/);
    terreno.register({
      name: "chat",
      register(app) {
        app.post("/chat", chat.middleware(), (_req, res) => {
          res.json({ ok: true });
        });
      },
    });
    const app = terreno.build();
    const user = await signUp(app, "chatter");
    for (let i = 0; i < 10; i++) {
      assert.equal((await request(app).post("/chat").set(bearer(user)).send({})).status, 200);
    }
    const refused = await request(app).post("/chat").set(bearer(user)).send({});
    assertRateLimited(refused, /Too many requests \(chat\)/);
    assert.ok(Number(refused.headers["retry-after"]) <= 10);
  });

  test("createRateLimit: a standalone limiter throws rate_limited with Retry-After", async () => {
    const limit = createRateLimit({ name: "standalone", points: 2, duration: 30 });
    await limit.consume("k");
    await limit.consume("k");
    await assert.rejects(
      limit.consume("k"),
      (error: Error & { code?: string; headers?: object }) => {
        assert.equal(error.code, "rate_limited");
        assert.match(
          String((error.headers as Record<string, string>)["Retry-After"]),
          /^[1-9]\d*$/,
        );
        return true;
      },
    );
    await limit.consume("other");
    assert.throws(() => createRateLimit({ name: "bad", points: 0, duration: 1 }), /positive/);
  });

  test("bad windows fail at build, not per request", () => {
    assert.throws(() => buildApp({ writes: { points: 0, duration: 60 } }), /positive integer/);
    assert.throws(
      () => buildApp({}, { todo: { rateLimit: { points: 5, duration: 0.5 } } }),
      /Todo rateLimit.*whole number of seconds/,
    );
    assert.throws(
      () =>
        buildApp({ auth: { lockout: { maxFailures: 5, lockSeconds: 600, maxLockSeconds: 60 } } }),
      /maxLockSeconds/,
    );
  });

  test("clientIp: IPv4-mapped addresses as IPv4, IPv6 as its /64", () => {
    const ip = (address: string) => clientIp({ ip: address } as Parameters<typeof clientIp>[0]);
    assert.equal(ip("::ffff:192.0.2.1"), "192.0.2.1");
    assert.equal(ip("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::/64");
    assert.equal(ip("2001:db8::1"), "2001:db8:0:0::/64");
    assert.equal(ip("::1"), "0:0:0:0::/64");
    assert.equal(ip("fe80::1%eth0"), "fe80:0:0:0::/64");
  });
});
