// Issue #36 item 1 on REST: every record has a version, sent as `version` and as a strong ETag;
// If-Match makes PATCH and DELETE conditional (412, nothing written), If-None-Match answers 304,
// and a read sent back with its `version` is a conditional update (409 `conflict`).
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { Todo, User } from "../helpers/models.js";
import { buildRestApp, JWT_SECRET, todoOptions } from "../helpers/restApp.js";

useTestDatabase("rest_versions");

describe("REST versions and preconditions", () => {
  let app: Express;
  let alice: TestUser;

  before(async () => {
    app = buildRestApp();
    alice = await signUp(app, "alice");
  });

  const createTodo = async (title: string) => {
    const res = await request(app).post("/todos").set(bearer(alice)).send({ title }).expect(201);
    return res;
  };

  test("create, read and update send the version in the body and as a strong ETag", async () => {
    const created = await createTodo("versioned");
    assert.equal(created.body.data.version, 0);
    assert.equal(created.headers.etag, '"0"');
    const id = created.body.data.id;
    const read = await request(app).get(`/todos/${id}`).set(bearer(alice)).expect(200);
    assert.equal(read.headers.etag, '"0"');
    const updated = await request(app)
      .patch(`/todos/${id}`)
      .set(bearer(alice))
      .send({ title: "versioned 2" })
      .expect(200);
    assert.equal(updated.body.data.version, 1, "every write changes the version");
    assert.equal(updated.headers.etag, '"1"');
    const list = await request(app).get("/todos").set(bearer(alice)).expect(200);
    const listed = list.body.data.find((t: { id: string }) => t.id === id);
    assert.equal(listed.version, 1);
  });

  test("GET with If-None-Match naming the current version is a 304; another is a 200", async () => {
    const id = (await createTodo("cached")).body.data.id;
    const fresh = await request(app)
      .get(`/todos/${id}`)
      .set(bearer(alice))
      .set("If-None-Match", '"0"');
    assert.equal(fresh.status, 304);
    await request(app).patch(`/todos/${id}`).set(bearer(alice)).send({ completed: true });
    const changed = await request(app)
      .get(`/todos/${id}`)
      .set(bearer(alice))
      .set("If-None-Match", '"0"');
    assert.equal(changed.status, 200);
    assert.equal(changed.body.data.completed, true);
  });

  test("PATCH with a stale If-Match is a 412 with the current version; nothing is written", async () => {
    const id = (await createTodo("agent's")).body.data.id;
    // A person changes it after the agent read version 0.
    await request(app).patch(`/todos/${id}`).set(bearer(alice)).send({ title: "person's" });
    const stale = await request(app)
      .patch(`/todos/${id}`)
      .set(bearer(alice))
      .set("If-Match", '"0"')
      .send({ title: "agent's edit" });
    assert.equal(stale.status, 412);
    assert.equal(stale.body.code, "precondition_failed");
    assert.equal(stale.body.version, 1);
    assert.equal(stale.body.current.title, "person's");
    assert.equal(stale.headers.etag, '"1"');
    assert.equal((await Todo.findById(id).lean<{ title: string }>())?.title, "person's");
    const fresh = await request(app)
      .patch(`/todos/${id}`)
      .set(bearer(alice))
      .set("If-Match", '"1"')
      .send({ title: "agent's edit" })
      .expect(200);
    assert.equal(fresh.body.data.version, 2);
  });

  test("If-Match: a list matches any; * and no header leave the write unconditional", async () => {
    const id = (await createTodo("lists")).body.data.id;
    await request(app)
      .patch(`/todos/${id}`)
      .set(bearer(alice))
      .set("If-Match", '"7", "0"')
      .send({ priority: 2 })
      .expect(200);
    await request(app)
      .patch(`/todos/${id}`)
      .set(bearer(alice))
      .set("If-Match", "*")
      .send({ priority: 3 })
      .expect(200);
    // A weak tag never matches under If-Match's strong comparison (RFC 9110 §13.1.1).
    const weak = await request(app)
      .patch(`/todos/${id}`)
      .set(bearer(alice))
      .set("If-Match", 'W/"2"')
      .send({ priority: 4 });
    assert.equal(weak.status, 412);
  });

  test("DELETE with a stale If-Match is a 412 and the record stays; with the current one it goes", async () => {
    const id = (await createTodo("delete me")).body.data.id;
    await request(app).patch(`/todos/${id}`).set(bearer(alice)).send({ completed: true });
    const stale = await request(app)
      .delete(`/todos/${id}`)
      .set(bearer(alice))
      .set("If-Match", '"0"');
    assert.equal(stale.status, 412);
    assert.equal(stale.body.current.completed, true);
    assert.ok(await Todo.findById(id));
    await request(app).delete(`/todos/${id}`).set(bearer(alice)).set("If-Match", '"1"').expect(204);
  });

  test("lost update: a read sent back with its version after a person's change is a 409 carrying it", async () => {
    const id = (await createTodo("buy milk")).body.data.id;
    const read = (await request(app).get(`/todos/${id}`).set(bearer(alice))).body.data;
    await request(app).patch(`/todos/${id}`).set(bearer(alice)).send({ priority: 5 }).expect(200);
    // The agent edits what it read and sends it all back, version included.
    const stale = await request(app)
      .patch(`/todos/${id}`)
      .set(bearer(alice))
      .send({ ...read, title: "buy oat milk" });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.code, "conflict");
    assert.equal(stale.body.current.priority, 5, "the refusal carries the person's change");
    const stored = await Todo.findById(id).lean<{ title: string; priority: number }>();
    assert.deepEqual([stored?.title, stored?.priority], ["buy milk", 5]);
    // Without a version, today's behaviour: the patch applies over the person's change.
    await request(app)
      .patch(`/todos/${id}`)
      .set(bearer(alice))
      .send({ title: "buy oat milk" })
      .expect(200);
    const after = await Todo.findById(id).lean<{ title: string; priority: number }>();
    assert.deepEqual([after?.title, after?.priority], ["buy oat milk", 5]);
  });

  test("a version that is not a non-negative integer is a 400 naming version", async () => {
    const id = (await createTodo("bad version")).body.data.id;
    const res = await request(app)
      .patch(`/todos/${id}`)
      .set(bearer(alice))
      .send({ title: "x", version: "latest" });
    assert.equal(res.status, 400);
    assert.ok(res.body.fields.version);
  });

  test("requireVersion: true refuses a PATCH or DELETE without one (428), nothing written", async () => {
    const strict = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
      .register(modelRouter(Todo, todoOptions({ requireVersion: true })))
      .build();
    const bob = await signUp(strict, "bob-strict");
    const created = await request(strict).post("/todos").set(bearer(bob)).send({ title: "t" });
    const id = created.body.data.id;
    const patch = await request(strict).patch(`/todos/${id}`).set(bearer(bob)).send({ title: "u" });
    assert.equal(patch.status, 428);
    assert.equal(patch.body.code, "precondition_required");
    const del = await request(strict).delete(`/todos/${id}`).set(bearer(bob));
    assert.equal(del.status, 428);
    assert.equal((await Todo.findById(id).lean<{ title: string }>())?.title, "t");
    await request(strict)
      .patch(`/todos/${id}`)
      .set(bearer(bob))
      .set("If-Match", '"0"')
      .send({ title: "u" })
      .expect(200);
    await request(strict)
      .patch(`/todos/${id}`)
      .set(bearer(bob))
      .send({ title: "v", version: 1 })
      .expect(200);
  });
});

// Issue #36 item 6: preUpdate receives the stored document beside the patch.
describe("preUpdate sees the record as stored", () => {
  test("a hook checks a transition from the stored document, and sees its version", async () => {
    const seen: Array<{ completed: unknown; version: unknown }> = [];
    const app = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
      .register(
        modelRouter(
          Todo,
          todoOptions({
            preUpdate: (body, _req, doc) => {
              seen.push({ completed: doc.completed, version: doc.get("__v") });
              // A done todo is not reopened.
              return doc.completed && body.completed === false ? null : body;
            },
          }),
        ),
      )
      .build();
    const carol = await signUp(app, "carol-hooks");
    const id = (await request(app).post("/todos").set(bearer(carol)).send({ title: "t" })).body.data
      .id;
    await request(app)
      .patch(`/todos/${id}`)
      .set(bearer(carol))
      .send({ completed: true })
      .expect(200);
    const reopen = await request(app)
      .patch(`/todos/${id}`)
      .set(bearer(carol))
      .send({ completed: false });
    assert.equal(reopen.status, 403);
    assert.deepEqual(seen, [
      { completed: false, version: 0 },
      { completed: true, version: 1 },
    ]);
    assert.equal((await Todo.findById(id).lean<{ completed: boolean }>())?.completed, true);
  });
});
