// Issue #12, REST side of merge patches: the merge-patch media type on PATCH (and /mcp keeping
// its own parser), hooks receiving the patch, and merging into Map, Mixed and single-nested
// subdocument fields. The semantics every surface shares are in test/contract/cases/mergePatch.ts.

import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Express } from "express";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { IsAuthenticated } from "../../src/core/permissions.js";
import type { PlainObject } from "../../src/core/types.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { Todo, User } from "../helpers/models.js";
import { JWT_SECRET, todoOptions } from "../helpers/restApp.js";

useTestDatabase("rest_merge_patch");

/** Every kind of value a patch can reach: a map, a Mixed value, subdocuments, a nested object. */
const gizmoSchema = new Schema({
  name: { type: String, required: true },
  scores: { type: Map, of: Number },
  extra: Schema.Types.Mixed,
  part: new Schema({ label: String, size: Number }),
  spec: { code: { type: String, required: true, default: "A" }, note: String },
});
const Gizmo = mongoose.models.Gizmo ?? mongoose.model("Gizmo", gizmoSchema);

const seen: Array<{ hook: string; body: PlainObject; prev?: PlainObject }> = [];

describe("REST merge patch", () => {
  let app: Express;
  let alice: TestUser;

  before(async () => {
    app = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
      .register(
        modelRouter(
          Todo,
          todoOptions({
            preUpdate: (body) => {
              seen.push({ hook: "preUpdate", body });
              return body;
            },
            postUpdate: (_doc, body, _req, prev) => {
              seen.push({ hook: "postUpdate", body, prev });
            },
          }),
        ),
      )
      .register(
        modelRouter(Gizmo, {
          permissions: {
            create: [IsAuthenticated],
            read: [IsAuthenticated],
            update: [IsAuthenticated],
          },
        }),
      )
      .build();
    alice = await signUp(app, "alice");
  });

  const patch = (path: string, body: unknown, type = "application/merge-patch+json") =>
    request(app)
      .patch(path)
      .set(bearer(alice))
      .set("Content-Type", type)
      .send(JSON.stringify(body));

  test("PATCH takes Content-Type: application/merge-patch+json", async () => {
    const created = await request(app)
      .post("/todos")
      .set(bearer(alice))
      .send({ title: "typed", priority: 2, reminder: { at: "2031-01-01", channel: "email" } })
      .expect(201);
    const id = created.body.data.id;
    const res = await patch(`/todos/${id}`, { priority: null, reminder: { channel: "push" } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.priority, undefined);
    assert.deepEqual(res.body.data.reminder, { at: "2031-01-01T00:00:00.000Z", channel: "push" });
    // Plain JSON still works, and other types are still refused.
    await patch(`/todos/${id}`, { completed: true }, "application/json").expect(200);
    const refused = await patch(`/todos/${id}`, { completed: false }, "text/plain");
    assert.equal(refused.status, 415, refused.text);
  });

  test("/mcp keeps its own parser: a merge-patch body is not read as JSON-RPC", async () => {
    const res = await request(app)
      .post("/mcp")
      .set(bearer(alice))
      .set("Accept", "application/json, text/event-stream")
      .set("Content-Type", "application/merge-patch+json")
      .send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
    assert.ok(res.status >= 400 && res.status < 500, `${res.status} ${res.text}`);
  });

  test("preUpdate receives the patch (subdocument ids as _id); postUpdate the previous document", async () => {
    const created = await request(app)
      .post("/todos")
      .set(bearer(alice))
      .send({ title: "hooked", checklist: [{ text: "a" }] })
      .expect(201);
    const { id, checklist } = created.body.data;
    seen.length = 0;
    const body = { title: "hooked again", checklist: [{ id: checklist[0].id, text: "b" }] };
    await patch(`/todos/${id}`, body).expect(200);
    assert.deepEqual(
      seen.map((s) => s.hook),
      ["preUpdate", "postUpdate"],
    );
    assert.deepEqual(seen[0].body, {
      title: "hooked again",
      checklist: [{ _id: checklist[0].id, text: "b" }],
    });
    assert.equal(seen[1].prev?.title, "hooked");
  });

  test("maps merge by key (null removes one), Mixed values merge as JSON", async () => {
    const created = await request(app)
      .post("/gizmos")
      .set(bearer(alice))
      .send({ name: "g", scores: { a: 1, b: 2 }, extra: { keep: 1, nested: { x: 1, y: 2 } } })
      .expect(201);
    const id = created.body.data.id;
    const res = await patch(`/gizmos/${id}`, {
      scores: { a: null, c: 3 },
      extra: { nested: { y: null, z: [1, 2] }, added: "s" },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.scores, { b: 2, c: 3 });
    assert.deepEqual(res.body.data.extra, { keep: 1, nested: { x: 1, z: [1, 2] }, added: "s" });
  });

  test("a single nested subdocument merges and keeps its id; null removes it", async () => {
    const created = await request(app)
      .post("/gizmos")
      .set(bearer(alice))
      .send({ name: "p", part: { label: "bolt", size: 3 } })
      .expect(201);
    const { id, part } = created.body.data;
    assert.match(part.id, /^[0-9a-f]{24}$/);
    const merged = await patch(`/gizmos/${id}`, { part: { size: 4 } });
    assert.equal(merged.status, 200, merged.text);
    assert.deepEqual(merged.body.data.part, { id: part.id, label: "bolt", size: 4 });
    // Written back as read, id included: nothing changes.
    await patch(`/gizmos/${id}`, { part: merged.body.data.part }).expect(200);
    const cleared = await patch(`/gizmos/${id}`, { part: null });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.body.data.part, undefined);
  });

  test("a patch into an object stored as null sets it whole, without the patch's nulls", async () => {
    const created = await request(app)
      .post("/todos")
      .set(bearer(alice))
      .send({ title: "legacy" })
      .expect(201);
    const id = created.body.data.id;
    // Data written by other code may hold null where this API would have removed the field.
    await Todo.collection.updateOne(
      { _id: new mongoose.Types.ObjectId(id) },
      { $set: { reminder: null } },
    );
    const res = await patch(`/todos/${id}`, { reminder: { channel: "push", at: null } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.reminder, { channel: "push" });
    const stored = await Todo.findById(id).lean<{ reminder?: unknown }>();
    assert.deepEqual(stored?.reminder, { channel: "push" });
  });

  test("a nested object holding a required field cannot be cleared; its optional field can", async () => {
    const created = await request(app)
      .post("/gizmos")
      .set(bearer(alice))
      .send({ name: "s", spec: { code: "B", note: "n" } })
      .expect(201);
    const id = created.body.data.id;
    const refused = await patch(`/gizmos/${id}`, { spec: null, name: "changed" });
    assert.equal(refused.status, 400, refused.text);
    assert.deepEqual(refused.body.fields, { spec: "is required" });
    const code = await patch(`/gizmos/${id}`, { spec: { code: null } });
    assert.deepEqual(code.body.fields, { "spec.code": "is required" });
    const note = await patch(`/gizmos/${id}`, { spec: { note: null } });
    assert.equal(note.status, 200, note.text);
    assert.deepEqual(note.body.data.spec, { code: "B" });
    assert.equal(note.body.data.name, "s", "the refused patch wrote nothing");
  });
});
