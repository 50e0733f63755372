import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { Todo } from "../helpers/models.js";
import { buildRestApp, hookCalls } from "../helpers/restApp.js";

useTestDatabase("rest_crud");

describe("REST CRUD", () => {
  let app: Express;
  let alice: TestUser;

  before(async () => {
    app = buildRestApp();
    alice = await signUp(app, "alice");
  });

  test("create returns 201 with id, populated owner and no __v or password hash", async () => {
    const res = await request(app)
      .post("/todos")
      .set(bearer(alice))
      .send({ title: "Buy milk", tags: ["home"], dueDate: "2026-12-01T10:00:00.000Z" });
    assert.equal(res.status, 201);
    const todo = res.body.data;
    assert.match(todo.id, /^[0-9a-f]{24}$/);
    assert.equal(todo.title, "Buy milk");
    assert.equal(todo.completed, false);
    assert.deepEqual(todo.tags, ["home"]);
    assert.equal(todo.dueDate, "2026-12-01T10:00:00.000Z");
    assert.equal(todo._id, undefined);
    assert.equal(todo.__v, undefined);
    assert.equal(todo.ownerId.id, alice.userId);
    assert.equal(todo.ownerId.name, "alice");
    assert.equal(todo.ownerId.passwordHash, undefined, "select:false fields never populate");
    assert.ok(hookCalls.includes("preCreate:rest"));
    assert.ok(hookCalls.includes("postCreate"));
  });

  test("read, update and delete one document", async () => {
    const created = await request(app).post("/todos").set(bearer(alice)).send({ title: "Walk" });
    const id = created.body.data.id;

    const read = await request(app).get(`/todos/${id}`).set(bearer(alice));
    assert.equal(read.status, 200);
    assert.equal(read.body.data.title, "Walk");

    const updated = await request(app)
      .patch(`/todos/${id}`)
      .set(bearer(alice))
      .send({ completed: true, title: "Run" });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.data.completed, true);
    assert.equal(updated.body.data.title, "Run");
    assert.ok(hookCalls.includes("postUpdate:Walk"), "postUpdate receives the previous document");

    const deleted = await request(app).delete(`/todos/${id}`).set(bearer(alice));
    assert.equal(deleted.status, 204);
    assert.ok(hookCalls.includes("postDelete"));

    const gone = await request(app).get(`/todos/${id}`).set(bearer(alice));
    assert.equal(gone.status, 404);
    assert.equal(gone.body.code, "not_found");
  });

  test("soft delete keeps the document but hides it from lists and totals", async () => {
    const bob = await signUp(app, "bob");
    const ids: string[] = [];
    for (const title of ["one", "two", "three"]) {
      const res = await request(app).post("/todos").set(bearer(bob)).send({ title });
      ids.push(res.body.data.id);
    }
    await request(app).delete(`/todos/${ids[0]}`).set(bearer(bob)).expect(204);
    const stored = await Todo.findById(ids[0]).lean();
    assert.equal((stored as { deleted?: boolean } | null)?.deleted, true);
    const list = await request(app).get("/todos").set(bearer(bob));
    assert.equal(list.body.total, 2);
    assert.deepEqual(list.body.data.map((t: { title: string }) => t.title).sort(), [
      "three",
      "two",
    ]);
  });

  test("list pages with page, limit, total and more; limit is clamped by maxLimit", async () => {
    const carol = await signUp(app, "carol");
    for (let i = 0; i < 12; i++) {
      await request(app)
        .post("/todos")
        .set(bearer(carol))
        .send({ title: `t${i}`, priority: (i % 5) + 1 });
    }
    const first = await request(app).get("/todos?limit=5&sort=title").set(bearer(carol));
    assert.equal(first.status, 200);
    assert.deepEqual(
      {
        page: first.body.page,
        limit: first.body.limit,
        total: first.body.total,
        more: first.body.more,
      },
      { page: 1, limit: 5, total: 12, more: true },
    );
    assert.deepEqual(
      first.body.data.map((t: { title: string }) => t.title),
      ["t0", "t1", "t10", "t11", "t2"],
    );
    const last = await request(app).get("/todos?limit=5&page=3&sort=title").set(bearer(carol));
    assert.equal(last.body.data.length, 2);
    assert.equal(last.body.more, false);
    const defaults = await request(app).get("/todos").set(bearer(carol));
    assert.equal(defaults.body.limit, 10, "defaultLimit applies");
    const clamped = await request(app).get("/todos?limit=1000000000").set(bearer(carol));
    assert.equal(clamped.status, 200);
    assert.equal(clamped.body.limit, 25, "maxLimit clamps");
    const sorted = await request(app).get("/todos?sort=-priority,title&limit=3").set(bearer(carol));
    assert.deepEqual(
      sorted.body.data.map((t: { priority: number }) => t.priority),
      [5, 5, 4],
    );
  });

  test("pre-hooks returning null refuse the write with 403", async () => {
    const refused = await request(app)
      .post("/todos")
      .set(bearer(alice))
      .send({ title: "forbidden by hook" });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, "forbidden");
    const created = await request(app)
      .post("/todos")
      .set(bearer(alice))
      .send({ title: "undeletable" });
    const del = await request(app).delete(`/todos/${created.body.data.id}`).set(bearer(alice));
    assert.equal(del.status, 403);
    const upd = await request(app)
      .patch(`/todos/${created.body.data.id}`)
      .set(bearer(alice))
      .send({ title: "forbidden by hook" });
    assert.equal(upd.status, 403);
    assert.equal(
      ((await Todo.findById(created.body.data.id).lean()) as { title?: string } | null)?.title,
      "undeletable",
    );
  });

  test("a disabled method answers 405 JSON", async () => {
    const food = await request(app)
      .post("/foods")
      .set(bearer(alice))
      .send({ name: "apple", calories: 52 });
    assert.equal(food.status, 201);
    assert.equal(food.body.data.ownerId.name, "alice");
    const res = await request(app).delete(`/foods/${food.body.data.id}`).set(bearer(alice));
    assert.equal(res.status, 405);
    assert.equal(res.body.code, "method_not_allowed");
    assert.equal(res.body.status, 405);
  });

  test("populate can be narrowed to a declared path or skipped", async () => {
    const created = await request(app).post("/todos").set(bearer(alice)).send({ title: "pop" });
    const plain = await request(app)
      .get(`/todos/${created.body.data.id}?populate=`)
      .set(bearer(alice));
    assert.equal(plain.body.data.ownerId, alice.userId, "an empty populate list leaves the id");
    const named = await request(app)
      .get(`/todos/${created.body.data.id}?populate=ownerId`)
      .set(bearer(alice));
    assert.equal(named.body.data.ownerId.name, "alice");
    const bad = await request(app)
      .get(`/todos/${created.body.data.id}?populate=secret`)
      .set(bearer(alice));
    assert.equal(bad.status, 400);
    assert.match(bad.body.detail, /Cannot populate secret/);
  });
});
