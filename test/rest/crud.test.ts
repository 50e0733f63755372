import assert from "node:assert/strict";
import { describe, test } from "node:test";
import request from "supertest";
import { bearer, signedUp, signUp } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { Todo } from "../helpers/models.js";
import { buildRestApp, hookCalls } from "../helpers/restApp.js";

useTestDatabase("rest_crud");

// Permissions, hidden fields, paging, validation and conflicts are asserted once for every
// surface in test/contract; this file keeps REST serialization, hooks, soft delete and populate.
describe("REST CRUD", () => {
  const app = buildRestApp();
  const [alice] = signedUp(app, "alice");

  test("create serializes the document: id, dates as ISO strings, no _id or __v; hooks run", async () => {
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
    assert.ok(hookCalls.includes("preCreate:rest"));
    assert.ok(hookCalls.includes("postCreate"));
  });

  test("postUpdate receives the previous document; postDelete runs", async () => {
    const created = await request(app).post("/todos").set(bearer(alice)).send({ title: "Walk" });
    const id = created.body.data.id;
    await request(app).patch(`/todos/${id}`).set(bearer(alice)).send({ title: "Run" }).expect(200);
    assert.ok(hookCalls.includes("postUpdate:Walk"), "postUpdate receives the previous document");
    await request(app).delete(`/todos/${id}`).set(bearer(alice)).expect(204);
    assert.ok(hookCalls.includes("postDelete"));
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

  test("preDelete returning null refuses the delete with 403", async () => {
    const created = await request(app)
      .post("/todos")
      .set(bearer(alice))
      .send({ title: "undeletable" });
    const del = await request(app).delete(`/todos/${created.body.data.id}`).set(bearer(alice));
    assert.equal(del.status, 403);
    assert.equal(del.body.code, "forbidden");
    const stored = (await Todo.findById(created.body.data.id).lean()) as {
      deleted?: boolean;
    } | null;
    assert.equal(stored?.deleted, false);
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
