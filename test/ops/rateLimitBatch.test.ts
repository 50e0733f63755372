/**
 * The shared store's local allowances (src/ops/rateLimitBatch.ts): two TerrenoApps on one
 * FerretDB, each taking `batch` points from the store at a time. Within a window a caller is
 * never granted more than `points` across both, and is refused early by at most
 * (instances − 1) × (batch − 1) points; a refused caller is refused in memory (the store's
 * count does not move). The counters' connection has one socket (maxPoolSize 1), as
 * docs/rate-limits-and-audit.md recommends on FerretDB, whose concurrent updates of one
 * document from several sockets are not isolated.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import mongoose, { type Connection } from "mongoose";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { TerrenoError } from "../../src/core/errors.js";
import { RATE_LIMIT_COLLECTION, type RateLimitOptions } from "../../src/ops/rateLimit.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { bearer, signUp } from "../helpers/auth.js";
import { useConnection, useTestDatabase } from "../helpers/database.js";
import { Todo, User } from "../helpers/models.js";
import { JWT_SECRET, todoOptions } from "../helpers/restApp.js";

const database = useTestDatabase("ops_rate_limit_batch");

const POINTS = 500;
const BATCH = 10;

function instance(connection: Connection, extra: Partial<RateLimitOptions> = {}): TerrenoApp {
  return new TerrenoApp({
    userModel: User,
    auth: { jwt: { secret: JWT_SECRET } },
    rateLimit: {
      store: { mongo: connection },
      toolCalls: { points: POINTS, duration: 600 },
      writes: { points: POINTS, duration: 600 },
      batch: BATCH,
      ...extra,
    },
  }).register(modelRouter(Todo, todoOptions()));
}

/** Spends one tool-call point of `user` on `app`: true when granted, false when refused. */
async function spendOne(app: TerrenoApp, userId: string): Promise<boolean> {
  try {
    await app.rateLimits.consume({ action: "toolCall", user: { id: userId } });
    return true;
  } catch (error) {
    assert.ok(error instanceof TerrenoError && error.code === "rate_limited", String(error));
    return false;
  }
}

async function storedPoints(key: string): Promise<number | undefined> {
  const doc = await mongoose.connection.collection(RATE_LIMIT_COLLECTION).findOne({ key });
  return doc ? Number(doc.points) : undefined;
}

describe("batched allowances on a shared store", () => {
  const connection = useConnection(database, 1);

  test("one instance is exact: all `points`, then refusals", async () => {
    const app = instance(connection());
    await app.rateLimits.ready();
    let granted = 0;
    for (let i = 0; i < POINTS + 20; i += 1) if (await spendOne(app, "solo")) granted += 1;
    assert.equal(granted, POINTS);
  });

  test("two instances, calls alternating: never more than `points`, short by at most batch − 1", async () => {
    const a = instance(connection());
    const b = instance(connection());
    await Promise.all([a.rateLimits.ready(), b.rateLimits.ready()]);
    let granted = 0;
    for (let i = 0; i < POINTS + 40; i += 1) {
      if (await spendOne(i % 2 === 0 ? a : b, "alternating")) granted += 1;
    }
    assert.ok(granted <= POINTS, `granted ${granted} > ${POINTS}`);
    assert.ok(granted >= POINTS - (BATCH - 1), `granted ${granted} < ${POINTS - (BATCH - 1)}`);
  });

  test("two instances, concurrent bursts: never more than `points`, short by at most batch − 1", async () => {
    const a = instance(connection());
    const b = instance(connection());
    await Promise.all([a.rateLimits.ready(), b.rateLimits.ready()]);
    const burst = (app: TerrenoApp) =>
      Promise.all(Array.from({ length: 300 }, () => spendOne(app, "burst")));
    const results = (await Promise.all([burst(a), burst(b)])).flat();
    const granted = results.filter(Boolean).length;
    assert.ok(granted <= POINTS, `granted ${granted} > ${POINTS}`);
    assert.ok(granted >= POINTS - (BATCH - 1), `granted ${granted} < ${POINTS - (BATCH - 1)}`);
  });

  test("a refused caller is refused in memory: the store's count stops moving", async () => {
    const app = instance(connection(), { toolCalls: { points: 50, duration: 600 } }); // batch 1
    await app.rateLimits.ready();
    for (let i = 0; i < 50; i += 1) assert.equal(await spendOne(app, "blocked"), true);
    assert.equal(await spendOne(app, "blocked"), false);
    const key = "terreno_tool_calls:user:blocked";
    const counted = await storedPoints(key);
    for (let i = 0; i < 5; i += 1) assert.equal(await spendOne(app, "blocked"), false);
    assert.equal(await storedPoints(key), counted);
  });

  test("REST writes on two instances share the bound, and a refusal says when to retry", async () => {
    const a = instance(connection(), { writes: { points: 100, duration: 600 } }); // batch 2
    const b = instance(connection(), { writes: { points: 100, duration: 600 } });
    await Promise.all([a.rateLimits.ready(), b.rateLimits.ready()]);
    const apps = [a.build(), b.build()];
    const ada = await signUp(apps[0], "ada");
    let created = 0;
    let refusal: request.Response | undefined;
    for (let i = 0; i < 104; i += 1) {
      const res = await request(apps[i % 2])
        .post("/todos")
        .set(bearer(ada))
        .send({ title: `t${i}` });
      if (res.status === 201) created += 1;
      else refusal = res;
    }
    assert.ok(created <= 100 && created >= 99, `created ${created}`);
    assert.equal(refusal?.status, 429);
    assert.match(refusal?.headers["retry-after"] ?? "", /^[1-9]\d*$/);
  });

  test("a batch that is not a positive integer fails at construction", () => {
    for (const batch of [0, 1.5, -1]) {
      assert.throws(() => instance(connection(), { batch }).rateLimits, /rateLimit.batch/);
    }
  });
});
