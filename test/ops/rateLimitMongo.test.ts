/**
 * The `"mongo"` store: two TerrenoApp instances (two builds in one process, as two servers on
 * one database would be) share one limit, for writes, tool calls and the login lockout. Runs
 * on the suite's database (FerretDB 1.x unless MONGODB_URI is set).
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Express } from "express";
import mongoose from "mongoose";
import request from "supertest";
import { getMCPTools } from "../../src/ai/index.js";
import type { TerrenoApp } from "../../src/app/TerrenoApp.js";
import type { Logger } from "../../src/core/logger.js";
import { RATE_LIMIT_COLLECTION, type RateLimitOptions } from "../../src/ops/rateLimit.js";
import { bearer, PASSWORD, signUp, type TestUser } from "../helpers/auth.js";
import { openConnection, useConnection, useTestDatabase } from "../helpers/database.js";
import { restTerreno } from "../helpers/restApp.js";

const database = useTestDatabase("ops_rate_limit_mongo");

function instance(rateLimit: RateLimitOptions, logger?: Logger): TerrenoApp {
  return restTerreno({ rateLimit, ...(logger ? { logger } : {}) });
}

const post = (app: Express, user: TestUser, title: string) =>
  request(app).post("/todos").set(bearer(user)).send({ title });

describe('the "mongo" store', () => {
  const options: RateLimitOptions = {
    store: "mongo",
    auth: { perIp: { points: 1000, duration: 60 } },
    writes: { points: 3, duration: 60 },
    toolCalls: { points: 3, duration: 60 },
  };
  const first = instance(options);
  const second = instance(options);
  const a = first.build();
  const b = second.build();

  before(async () => {
    await Promise.all([first.rateLimits.ready(), second.rateLimits.ready()]);
  });

  test("two app instances share one write limit", async () => {
    const ada = await signUp(a, "ada");
    assert.equal((await post(a, ada, "1")).status, 201);
    assert.equal((await post(b, ada, "2")).status, 201);
    assert.equal((await post(a, ada, "3")).status, 201);
    for (const app of [b, a]) {
      const refused = await post(app, ada, "4");
      assert.equal(refused.status, 429);
      assert.equal(refused.body.code, "rate_limited");
      assert.match(refused.headers["retry-after"] ?? "", /^[1-9]\d*$/);
    }
  });

  test("…and one tool-call limit (MCP on one, getMCPTools on the other)", async () => {
    const bob = await signUp(a, "bob");
    const onA = getMCPTools({ app: first, user: { id: bob.userId } });
    const onB = getMCPTools({ app: second, user: { id: bob.userId } });
    const run = async (tools: typeof onA) =>
      (await tools.todos_list.execute?.(
        {},
        { toolCallId: "t", messages: [], context: {} },
      )) as Record<string, unknown>;
    assert.ok("data" in (await run(onA)));
    assert.ok("data" in (await run(onB)));
    const mcp = await request(a)
      .post("/mcp")
      .set("Accept", "application/json, text/event-stream")
      .set("Authorization", `Bearer ${bob.token}`)
      .send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "todos_list" } });
    assert.equal(mcp.status, 200);
    assert.equal(((await run(onB)).error as { code: string }).code, "rate_limited");
  });

  test("…and one login lockout", async () => {
    const cy = await signUp(a, "cy");
    for (let i = 0; i < 5; i++) {
      const app = i % 2 === 0 ? a : b;
      const res = await request(app)
        .post("/auth/login")
        .send({ email: cy.email, password: "x".repeat(12) });
      assert.equal(res.status, 401);
    }
    for (const app of [b, a]) {
      const locked = await request(app)
        .post("/auth/login")
        .send({ email: cy.email, password: PASSWORD });
      assert.equal(locked.status, 429);
      assert.match(locked.body.detail, /failed logins/);
    }
  });

  test("counters are documents keyed once each, with no email in them", async () => {
    const collection = mongoose.connection.collection(RATE_LIMIT_COLLECTION);
    const indexes = await collection.indexes();
    assert.ok(indexes.some((index) => index.unique && index.key.key === 1));
    const docs = await collection.find({}).toArray();
    assert.ok(docs.length > 0);
    const keys = docs.map((doc) => String(doc.key));
    assert.equal(new Set(keys).size, keys.length);
    assert.ok(keys.some((key) => key.startsWith("terreno_writes:user:")));
    assert.ok(keys.every((key) => !key.includes("@")));
  });
});

describe("the memory store", () => {
  test("keeps each instance's counts apart", async () => {
    const options: RateLimitOptions = { writes: { points: 2, duration: 60 } };
    const a = instance(options).build();
    const b = instance(options).build();
    const dee = await signUp(a, "dee");
    for (const app of [a, a, b, b]) assert.equal((await post(app, dee, "t")).status, 201);
    assert.equal((await post(a, dee, "t")).status, 429);
    assert.equal((await post(b, dee, "t")).status, 429);
  });
});

describe("a dedicated single-connection Mongo store", () => {
  // FerretDB 1.x applies concurrent updates of one document from several connections without
  // isolation, so a burst on one key can be under-counted on the default (pooled) connection.
  // One connection serializes the counters' updates: exact on FerretDB, and on MongoDB too.
  const connection = useConnection(database, 1);

  test("counts a concurrent burst exactly", async () => {
    const terreno = instance({
      store: { mongo: connection() },
      writes: { points: 5, duration: 60 },
    });
    const app = terreno.build();
    await terreno.rateLimits.ready();
    const eve = await signUp(app, "eve");
    const statuses = await Promise.all(
      Array.from({ length: 15 }, (_, i) => post(app, eve, `burst ${i}`).then((res) => res.status)),
    );
    assert.equal(statuses.filter((status) => status === 201).length, 5);
    assert.equal(statuses.filter((status) => status === 429).length, 10);
  });
});

describe("a warning for counters on FerretDB over a pooled connection", () => {
  const warnings: string[] = [];
  const logger: Logger = {
    error: () => {},
    warn: (_object, message) => warnings.push(message ?? ""),
    info: () => {},
  };
  const pooledWarning = (list: string[]) => list.filter((m) => /FerretDB over a pooled/.test(m));

  test('"mongo" on the pooled connection warns on FerretDB (and not on MongoDB); one socket does not', async () => {
    const info = await mongoose.connection.db?.admin().command({ buildInfo: 1 });
    const onFerretDB = typeof info?.ferretdbVersion === "string";
    // Its own connection: the app's default one was prepared (and told) by the suites above.
    const pooled = await openConnection(database, 10);
    const single = await openConnection(database, 1);
    try {
      const a = instance({ store: { mongo: pooled } }, logger);
      a.build();
      await a.rateLimits.ready();
      assert.equal(pooledWarning(warnings).length, onFerretDB ? 1 : 0, `${warnings}`);
      const b = instance({ store: { mongo: single } }, logger);
      b.build();
      await b.rateLimits.ready();
      assert.equal(pooledWarning(warnings).length, onFerretDB ? 1 : 0, `${warnings}`);
    } finally {
      await Promise.all([pooled.close(), single.close()]);
    }
  });
});
