/**
 * `$or`/`$and` in REST list filters (issue #12 item 5): the qs bracket syntax reaches the core,
 * two levels of nesting work against the database (find and count), limits and the field
 * allowlist hold inside branches, and no caller `$or`/`$and` ever widens the queryFilter scope.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Express } from "express";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { IsAuthenticated } from "../../src/core/permissions.js";
import type { User as CallerUser } from "../../src/core/types.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { Todo, User } from "../helpers/models.js";
import { JWT_SECRET, todoOptions } from "../helpers/restApp.js";

useTestDatabase("rest_filter_combinators");

/** A model with a select:false field listed in queryFields: REST must never filter on it. */
const Secretive =
  mongoose.models.ComboSecretive ??
  mongoose.model(
    "ComboSecretive",
    new Schema({ name: String, pin: { type: String, select: false } }, { timestamps: true }),
  );

/** Alice's `public` todos are visible to everyone; everything else only to its owner. */
const sharedScope = (user?: CallerUser) =>
  user ? { $or: [{ ownerId: user.id }, { tags: "public" }] } : null;

function buildApp(): Express {
  return new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
    .register("/todos", modelRouter(Todo, todoOptions()))
    .register(
      "/shared",
      modelRouter(Todo, todoOptions({ queryFilter: sharedScope, mcp: undefined })),
    )
    .register(
      "/open",
      modelRouter(
        Todo,
        todoOptions({
          defaultQueryParams: { $or: [{ completed: false }, { priority: 1 }] },
          queryFilter: undefined,
          mcp: undefined,
        }),
      ),
    )
    .register(
      "/secretive",
      modelRouter(Secretive, {
        permissions: { list: [IsAuthenticated], create: [IsAuthenticated] },
        queryFields: ["name", "pin"],
      }),
    )
    .build();
}

const titles = (res: request.Response) => {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.map((t: { title: string }) => t.title).sort();
};

describe("REST list filters: $or and $and", () => {
  let app: Express;
  let alice: TestUser;
  let bob: TestUser;
  const get = (user: TestUser, path: string, query: string) =>
    request(app).get(`${path}?${query}`).set(bearer(user));

  before(async () => {
    app = buildApp();
    alice = await signUp(app, "alice");
    bob = await signUp(app, "bob");
    const seed: Array<[TestUser, Record<string, unknown>]> = [
      [alice, { title: "alpha", completed: true, priority: 1, tags: ["a"] }],
      [alice, { title: "beta", completed: false, priority: 3, tags: ["b"] }],
      [alice, { title: "gamma", completed: false, priority: 5, tags: ["public"] }],
      [bob, { title: "bob-a", completed: false, priority: 2 }],
      [bob, { title: "bob-b", completed: true, priority: 4 }],
    ];
    for (const [user, todo] of seed) {
      await request(app).post("/todos").set(bearer(user)).send(todo).expect(201);
    }
    await request(app).post("/secretive").set(bearer(alice)).send({ name: "s", pin: "1234" });
  });

  test("$or branches from the query string, with operators, coerced and counted", async () => {
    const res = await get(alice, "/todos", "$or[0][title]=alpha&$or[1][priority][$gte]=5");
    assert.deepEqual(titles(res), ["alpha", "gamma"]);
    assert.equal(res.body.total, 2);
  });

  test("two levels: $or with an $and branch, next to a top-level field", async () => {
    const query =
      "$or[0][title]=alpha&$or[1][$and][0][priority][$gte]=3&$or[1][$and][1][completed]=false";
    const res = await get(alice, "/todos", query);
    assert.deepEqual(titles(res), ["alpha", "beta", "gamma"]);
    assert.equal(res.body.total, 3);
    const narrowed = await get(alice, "/todos", `${query}&completed=false`);
    assert.deepEqual(titles(narrowed), ["beta", "gamma"]);
  });

  test("top-level $and, with $in lists (comma and [] forms) two levels down", async () => {
    const comma = "$and[0][$or][0][title][$in]=alpha,beta&$and[1][completed]=false";
    assert.deepEqual(titles(await get(alice, "/todos", comma)), ["beta"]);
    const brackets =
      "$and[0][$or][0][title][$in][]=alpha&$and[0][$or][0][title][$in][]=gamma&$and[0][$or][1][priority]=3";
    assert.deepEqual(titles(await get(alice, "/todos", brackets)), ["alpha", "beta", "gamma"]);
  });

  test("a third level of $or/$and is a 400 naming its path", async () => {
    const res = await get(alice, "/todos", "$or[0][$and][0][$or][0][title]=alpha");
    assert.equal(res.status, 400);
    assert.equal(res.body.code, "validation_failed");
    assert.match(res.body.fields["$or.0.$and.0.$or"], /at most 2 levels/);
  });

  test("10 branches are accepted, 11 are a 400; an empty or non-list $or is a 400", async () => {
    const branches = (n: number) =>
      Array.from({ length: n }, (_, i) => `$or[${i}][title]=t${i}`).join("&");
    assert.deepEqual(titles(await get(alice, "/todos", `${branches(9)}&$or[9][title]=beta`)), [
      "beta",
    ]);
    for (const query of [branches(11), "$or=alpha", "$or[0]=alpha", "$or[150][title]=alpha"]) {
      const res = await get(alice, "/todos", query);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.code, "validation_failed", query);
      assert.ok(
        Object.keys(res.body.fields).some((key) => key.startsWith("$or")),
        `${query}: ${JSON.stringify(res.body.fields)}`,
      );
    }
    // qs's `[]` push form merges branches into one field list: refused, with indexes documented.
    const pushed = await get(alice, "/todos", "$or[][title]=alpha&$or[][title]=beta");
    assert.equal(pushed.status, 400);
    assert.ok(pushed.body.fields["$or.0.title"]);
  });

  test("a hidden (select:false) field inside a branch answers exactly like an unknown one", async () => {
    for (const shape of [
      "$or[0][name]=s&$or[1][FIELD]=1234",
      "$and[0][$or][0][FIELD][$exists]=true",
    ]) {
      const hidden = await get(alice, "/secretive", shape.replace("FIELD", "pin"));
      const unknown = await get(alice, "/secretive", shape.replace("FIELD", "nope"));
      assert.equal(hidden.status, 400, shape);
      assert.equal(hidden.status, unknown.status);
      assert.equal(hidden.body.detail, unknown.body.detail);
      assert.deepEqual(
        JSON.stringify(hidden.body.fields).replaceAll("pin", "X"),
        JSON.stringify(unknown.body.fields).replaceAll("nope", "X"),
      );
      assert.ok(!JSON.stringify(hidden.body).includes("1234"));
    }
    // A field outside queryFields is refused inside branches too.
    const createdAt = await get(
      alice,
      "/todos",
      "$or[0][title]=alpha&$or[1][createdAt]=2026-01-01",
    );
    assert.equal(createdAt.status, 400);
    assert.equal(createdAt.body.fields["$or.1.createdAt"], "is not a filterable field");
  });

  test("$where/$expr inside a branch and other top-level $ keys are 400s", async () => {
    for (const query of [
      "$or[0][title]=alpha&$or[1][$where]=sleep(1000)",
      "$or[0][$and][0][title][$where]=1",
      "$and[0][$expr][$gt]=1",
      "$nor[0][title]=alpha",
      "$or[0][$nor][0][title]=alpha",
      "$or[0][$text][$search]=alpha",
    ]) {
      const res = await get(alice, "/todos", query);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.code, "validation_failed", query);
    }
    const where = await get(alice, "/todos", "$or[0][title]=alpha&$or[1][$where]=1");
    assert.match(where.body.detail, /\$where/);
  });

  test("user B's $or/$and can never reach user A's todos (OwnerQueryFilter scope)", async () => {
    const queries = [
      `$or[0][ownerId]=${alice.userId}&$or[1][title]=alpha`,
      `$or[0][ownerId][$ne]=${bob.userId}&$or[1][completed]=true`,
      `$or[0][ownerId][$exists]=true`,
      `$and[0][$or][0][ownerId]=${alice.userId}&$and[0][$or][1][priority][$gte]=1`,
      `ownerId=${alice.userId}`,
      `$or[0][title][$regex]=.*`,
    ];
    for (const query of queries) {
      const res = await get(bob, "/todos", query);
      const seen = titles(res);
      assert.ok(
        seen.every((title: string) => title.startsWith("bob-")),
        `${query} → ${seen.join(", ")}`,
      );
      assert.ok(res.body.total <= 2, query);
    }
    // Bob's own todos still match his branches; Alice's never do.
    assert.deepEqual(
      titles(await get(bob, "/todos", `$or[0][ownerId]=${alice.userId}&$or[1][title]=bob-a`)),
      ["bob-a"],
    );
    assert.deepEqual(titles(await get(bob, "/todos", `ownerId=${alice.userId}`)), []);
  });

  test("a caller's $or neither replaces nor widens a scope that is itself an $or", async () => {
    // Scope for Bob: his own todos, or public ones (gamma). Alpha and beta stay out of reach.
    const res = await get(
      bob,
      "/shared",
      "$or[0][title]=alpha&$or[1][title]=gamma&$or[2][title]=bob-a",
    );
    assert.deepEqual(titles(res), ["bob-a", "gamma"]);
    assert.equal(res.body.total, 2);
    assert.deepEqual(titles(await get(bob, "/shared", "$or[0][priority][$gte]=1")), [
      "bob-a",
      "bob-b",
      "gamma",
    ]);
  });

  test("a caller's $or adds to a defaultQueryParams $or instead of replacing it", async () => {
    // Defaults: not completed, or priority 1. The caller's $or narrows within that.
    assert.deepEqual(titles(await get(alice, "/open", "")), ["alpha", "beta", "bob-a", "gamma"]);
    assert.deepEqual(titles(await get(alice, "/open", "$or[0][title]=alpha&$or[1][title]=bob-b")), [
      "alpha",
    ]);
  });
});
