import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { buildRestApp } from "../helpers/restApp.js";

useTestDatabase("rest_filters");

const titles = (res: request.Response) =>
  res.body.data.map((t: { title: string }) => t.title).sort();

describe("REST list filters", () => {
  let app: Express;
  let alice: TestUser;

  before(async () => {
    app = buildRestApp();
    alice = await signUp(app, "alice");
    const todos = [
      {
        title: "alpha",
        completed: true,
        priority: 1,
        dueDate: "2026-01-01T00:00:00Z",
        tags: ["a", "b"],
      },
      {
        title: "beta",
        completed: false,
        priority: 3,
        dueDate: "2026-06-01T00:00:00Z",
        tags: ["b"],
      },
      { title: "gamma", completed: false, priority: 5, tags: [] },
    ];
    for (const todo of todos)
      await request(app).post("/todos").set(bearer(alice)).send(todo).expect(201);
  });

  test("values are coerced by schema type: boolean, number, date, array items", async () => {
    assert.deepEqual(titles(await request(app).get("/todos?completed=true").set(bearer(alice))), [
      "alpha",
    ]);
    assert.deepEqual(titles(await request(app).get("/todos?priority=3").set(bearer(alice))), [
      "beta",
    ]);
    assert.deepEqual(titles(await request(app).get("/todos?tags=b").set(bearer(alice))), [
      "alpha",
      "beta",
    ]);
    const dated = await request(app)
      .get("/todos?dueDate[$gte]=2026-03-01T00:00:00Z")
      .set(bearer(alice));
    assert.deepEqual(titles(dated), ["beta"]);
  });

  test("allowlisted operators work: $gt, $in, $nin, $ne, $exists, $regex", async () => {
    const q = (qs: string) => request(app).get(`/todos?${qs}`).set(bearer(alice));
    assert.deepEqual(titles(await q("priority[$gt]=2")), ["beta", "gamma"]);
    assert.deepEqual(titles(await q("title[$in]=alpha,gamma")), ["alpha", "gamma"]);
    assert.deepEqual(titles(await q("title[$nin][]=alpha&title[$nin][]=gamma")), ["beta"]);
    assert.deepEqual(titles(await q("completed[$ne]=true")), ["beta", "gamma"]);
    assert.deepEqual(titles(await q("dueDate[$exists]=false")), ["gamma"]);
    assert.deepEqual(titles(await q("title[$regex]=^(al|be)")), ["alpha", "beta"]);
  });

  test("a field outside queryFields is a 400 naming it", async () => {
    const res = await request(app).get("/todos?createdAt=2026-01-01").set(bearer(alice));
    assert.equal(res.status, 400);
    assert.equal(res.body.code, "validation_failed");
    assert.equal(res.body.fields.createdAt, "is not a filterable field");
    assert.match(res.body.detail, /Filterable fields: title/);
  });

  test("$where, $expr and $function are refused wherever they appear, by name", async () => {
    for (const operator of ["$where", "$expr", "$function"]) {
      const top = await request(app).get(`/todos?${operator}=1`).set(bearer(alice));
      assert.equal(top.status, 400, operator);
      assert.match(top.body.detail, new RegExp(`\\${operator}`));
      const nested = await request(app)
        .get(`/todos?title[${operator}]=sleep(1000)`)
        .set(bearer(alice));
      assert.equal(nested.status, 400, operator);
      assert.match(nested.body.detail, new RegExp(`\\${operator}`));
    }
  });

  test('an injection object like {"$gt": ""} on a string field is refused, not executed', async () => {
    const res = await request(app).get("/todos?title[$gt]=").set(bearer(alice));
    assert.equal(res.status, 400);
    assert.match(res.body.fields.title, /operator \$gt is not allowed/);
  });

  test("bad values are 400s naming the field", async () => {
    const cases: Array<[string, string]> = [
      ["priority=high", "priority"],
      ["completed=maybe", "completed"],
      ["dueDate=notadate", "dueDate"],
      ["ownerId=123", "ownerId"],
      [`title[$regex]=${"a".repeat(201)}`, "title"],
      ["title[$regex]=(unclosed", "title"],
    ];
    for (const [qs, field] of cases) {
      const res = await request(app).get(`/todos?${qs}`).set(bearer(alice));
      assert.equal(res.status, 400, qs);
      assert.ok(res.body.fields[field], `${qs} names ${field}`);
    }
  });

  test("sort only on visible schema fields; page and limit must be positive integers", async () => {
    assert.equal((await request(app).get("/todos?sort=nope").set(bearer(alice))).status, 400);
    assert.equal((await request(app).get("/todos?sort=-priority").set(bearer(alice))).status, 200);
    for (const qs of ["page=0", "page=-1", "page=1.5", "limit=abc", "limit=0"]) {
      const res = await request(app).get(`/todos?${qs}`).set(bearer(alice));
      assert.equal(res.status, 400, qs);
      assert.equal(res.body.code, "validation_failed");
    }
  });
});
