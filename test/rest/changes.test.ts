// Issue #36 items 3 and 4 on REST, over real HTTP and FerretDB: `changes: true` records every
// write with its values (hidden ones never served), GET /changes lists the caller's own, and
// POST /changes/:id/undo reverses an update, a create and a delete, only while the record is
// at the version the change left (else 409 with both states, nothing written).
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Express } from "express";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import type { PlainObject, RequestContext } from "../../src/core/types.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { Todo, User } from "../helpers/models.js";
import { OWNED } from "../helpers/permissions.js";
import { JWT_SECRET, todoOptions } from "../helpers/restApp.js";

const noteSchema = new Schema(
  {
    title: { type: String, required: true },
    body: String,
    // Hidden on every surface: set by the app, never served.
    secret: { type: String, select: false },
    ownerId: { type: Schema.Types.ObjectId, ref: "User", required: true },
  },
  { timestamps: true },
);
const Note = mongoose.models.ChangeNote ?? mongoose.model("ChangeNote", noteSchema);

useTestDatabase("rest_changes");

const SECRET = "s3cret-value";

describe("REST change records and undo", () => {
  let app: Express;
  let alice: TestUser;
  let bob: TestUser;

  before(async () => {
    app = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } }, changes: true })
      .register(
        modelRouter(Note, {
          ...OWNED,
          preCreate: (body: PlainObject, req: RequestContext) => ({
            ...body,
            ownerId: req.user?.id,
            secret: SECRET,
          }),
        }),
      )
      .register(modelRouter(Todo, todoOptions()))
      .build();
    alice = await signUp(app, "alice");
    bob = await signUp(app, "bob");
  });

  const createNote = async (title: string) =>
    (await request(app).post("/change-notes").set(bearer(alice)).send({ title }).expect(201)).body
      .data;
  const changesOf = async (user: TestUser, record: string) =>
    (await request(app).get(`/changes?record=${record}`).set(bearer(user)).expect(200)).body.data;

  test("an update is recorded with its values and undone by its inverse patch", async () => {
    const note = await createNote("first");
    await request(app)
      .patch(`/change-notes/${note.id}`)
      .set(bearer(alice))
      .send({ title: "second", body: "added" })
      .expect(200);
    const [latest, created] = await changesOf(alice, note.id);
    assert.equal(created.action, "create");
    assert.equal(latest.action, "update");
    assert.equal(latest.userId, alice.userId);
    assert.equal(latest.surface, "rest");
    assert.equal(latest.version, 1);
    assert.deepEqual(
      [...latest.changes].sort((a: PlainObject, b: PlainObject) =>
        String(a.path).localeCompare(String(b.path)),
      ),
      [
        { path: "body", after: "added" },
        { path: "title", before: "first", after: "second" },
      ],
    );
    const undone = await request(app)
      .post(`/changes/${latest.id}/undo`)
      .set(bearer(alice))
      .expect(200);
    assert.equal(undone.body.data.title, "first");
    assert.equal(undone.body.data.body, undefined);
    const read = await request(app).get(`/change-notes/${note.id}`).set(bearer(alice)).expect(200);
    assert.equal(read.body.data.title, "first");
    // The undo is itself a change.
    const after = await changesOf(alice, note.id);
    assert.equal(after.length, 3);
    assert.equal(after[0].operation, "POST /changes/:id/undo");
  });

  test("a create is undone by a delete, and a delete by a restore with the same id and hidden fields", async () => {
    const note = await createNote("to delete");
    await request(app).delete(`/change-notes/${note.id}`).set(bearer(alice)).expect(204);
    const [deleted] = await changesOf(alice, note.id);
    assert.equal(deleted.action, "delete");
    await request(app).post(`/changes/${deleted.id}/undo`).set(bearer(alice)).expect(200);
    const restored = await request(app)
      .get(`/change-notes/${note.id}`)
      .set(bearer(alice))
      .expect(200);
    assert.equal(restored.body.data.title, "to delete");
    const raw = await Note.collection.findOne({ _id: new mongoose.Types.ObjectId(note.id) });
    assert.equal(raw?.secret, SECRET, "the hidden field came back");

    const other = await createNote("to uncreate");
    const [createdChange] = await changesOf(alice, other.id);
    await request(app).post(`/changes/${createdChange.id}/undo`).set(bearer(alice)).expect(200);
    await request(app).get(`/change-notes/${other.id}`).set(bearer(alice)).expect(404);
  });

  test("a soft delete is undone by bringing the record back", async () => {
    const todo = (
      await request(app).post("/todos").set(bearer(alice)).send({ title: "soft" }).expect(201)
    ).body.data;
    await request(app).delete(`/todos/${todo.id}`).set(bearer(alice)).expect(204);
    await request(app).get(`/todos/${todo.id}`).set(bearer(alice)).expect(404);
    const [deleted] = await changesOf(alice, todo.id);
    assert.equal(deleted.action, "delete");
    await request(app).post(`/changes/${deleted.id}/undo`).set(bearer(alice)).expect(200);
    const read = await request(app).get(`/todos/${todo.id}`).set(bearer(alice)).expect(200);
    assert.equal(read.body.data.title, "soft");
  });

  test("undo after a later change is 409 with both states, and writes nothing", async () => {
    const note = await createNote("v0");
    await request(app)
      .patch(`/change-notes/${note.id}`)
      .set(bearer(alice))
      .send({ title: "v1" })
      .expect(200);
    const [first] = await changesOf(alice, note.id);
    await request(app)
      .patch(`/change-notes/${note.id}`)
      .set(bearer(alice))
      .send({ title: "v2" })
      .expect(200);
    const refused = await request(app)
      .post(`/changes/${first.id}/undo`)
      .set(bearer(alice))
      .expect(409);
    assert.equal(refused.body.code, "conflict");
    assert.equal(refused.body.current.title, "v2");
    assert.equal(refused.body.change.id, first.id);
    const read = await request(app).get(`/change-notes/${note.id}`).set(bearer(alice)).expect(200);
    assert.equal(read.body.data.title, "v2");
    assert.equal(read.body.data.version, 2, "nothing was written");
    assert.equal((await changesOf(alice, note.id)).length, 3);
  });

  test("another user's change is a 404 to undo and absent from their list", async () => {
    const note = await createNote("alice's");
    const [created] = await changesOf(alice, note.id);
    await request(app).post(`/changes/${created.id}/undo`).set(bearer(bob)).expect(404);
    assert.deepEqual(await changesOf(bob, note.id), []);
    await request(app).get(`/change-notes/${note.id}`).set(bearer(alice)).expect(200);
  });

  test("no hidden value appears in GET /changes or /openapi.json", async () => {
    const note = await createNote("hidden");
    const [created] = await changesOf(alice, note.id);
    assert.ok(created.changes.some((c: PlainObject) => c.path === "secret" && c.hidden === true));
    const list = await request(app).get("/changes").set(bearer(alice)).expect(200);
    assert.ok(!JSON.stringify(list.body).includes(SECRET));
    const openapi = await request(app).get("/openapi.json").expect(200);
    assert.ok(openapi.body.paths["/changes"].get);
    assert.ok(openapi.body.paths["/changes/{id}/undo"].post);
    assert.ok(!JSON.stringify(openapi.body).includes(SECRET));
  });
});
