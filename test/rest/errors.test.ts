import assert from "node:assert/strict";
import { describe, test } from "node:test";
import request from "supertest";
import { bearer, signedUp } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { Food, Todo } from "../helpers/models.js";
import { buildRestApp } from "../helpers/restApp.js";

useTestDatabase("rest_errors");

function assertErrorShape(body: Record<string, unknown>, status: number, code: string) {
  assert.equal(body.status, status);
  assert.equal(body.code, code);
  assert.equal(typeof body.title, "string");
  assert.equal(typeof body.detail, "string");
}

describe("REST errors", () => {
  const app = buildRestApp();
  const [alice] = signedUp(app, "alice");

  test("malformed JSON is a 400 JSON body, not Express's HTML page", async () => {
    const res = await request(app)
      .post("/todos")
      .set(bearer(alice))
      .set("Content-Type", "application/json")
      .send('{"title": ');
    assert.equal(res.status, 400);
    assert.match(String(res.headers["content-type"]), /json/);
    assertErrorShape(res.body, 400, "validation_failed");
  });

  test("an oversized body is a 413 JSON body", async () => {
    const res = await request(app)
      .post("/todos")
      .set(bearer(alice))
      .send({ title: "x".repeat(30_000) });
    assert.equal(res.status, 413);
    assertErrorShape(res.body, 413, "payload_too_large");
  });

  test("a non-JSON body is a 415", async () => {
    const res = await request(app)
      .post("/todos")
      .set(bearer(alice))
      .set("Content-Type", "text/plain")
      .send("title=x");
    assert.equal(res.status, 415);
    assertErrorShape(res.body, 415, "unsupported_media_type");
  });

  test("unknown routes and malformed ids are 404 JSON", async () => {
    const route = await request(app).get("/nope").set(bearer(alice));
    assertErrorShape(route.body, 404, "not_found");
    const id = await request(app).get("/todos/not-an-id").set(bearer(alice));
    assertErrorShape(id.body, 404, "not_found");
    const injected = await request(app)
      .get(`/todos/${encodeURIComponent('{"$gt":""}')}`)
      .set(bearer(alice));
    assert.equal(injected.status, 404);
  });

  test("validation errors are 400 with each field's message and no echoed value", async () => {
    const res = await request(app)
      .post("/todos")
      .set(bearer(alice))
      .send({ priority: 9, completed: "SECRETVALUE" });
    assertErrorShape(res.body, 400, "validation_failed");
    assert.equal(res.body.fields.title, "is required");
    assert.ok(res.body.fields.priority);
    assert.ok(res.body.fields.completed);
    assert.doesNotMatch(JSON.stringify(res.body), /SECRETVALUE/);
  });

  test("mass assignment of ownerId, _id, __v, unknown and operator keys is refused and nothing is written", async () => {
    const before = await Todo.countDocuments();
    const bodies = [
      { title: "x", ownerId: "0123456789abcdef01234567" },
      { title: "x", _id: "0123456789abcdef01234567" },
      { title: "x", __v: 5 },
      { title: "x", admin: true },
      { title: "x", createdAt: "2020-01-01T00:00:00Z" },
      { title: { $gt: "" } },
      { title: "x", tags: [{ $where: "1" }] },
      JSON.parse('{"title": "x", "__proto__": {"admin": true}}'),
    ];
    for (const body of bodies) {
      const res = await request(app).post("/todos").set(bearer(alice)).send(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, "validation_failed");
    }
    assert.equal(await Todo.countDocuments(), before);
    const created = await request(app).post("/todos").set(bearer(alice)).send({ title: "mine" });
    const patch = await request(app)
      .patch(`/todos/${created.body.data.id}`)
      .set(bearer(alice))
      .send({ ownerId: "0123456789abcdef01234567" });
    // On update, a read-only field may come back as a read shows it (`readOnly` in the
    // schema); another value is refused, naming it, and nothing is written.
    assert.equal(patch.status, 400, JSON.stringify(patch.body));
    assert.match(patch.body.fields.ownerId, /is read-only/);
    const stored = await Todo.findById(created.body.data.id).lean();
    assert.equal(String(stored?.ownerId), alice.userId, "the owner did not change");
    const other = await request(app)
      .patch(`/todos/${created.body.data.id}`)
      .set(bearer(alice))
      .send({ id: "0123456789abcdef01234567", title: "moved?" });
    assert.equal(other.status, 400, "another document's id is refused");
    assert.match(other.body.fields.id, /is read-only/);
  });

  test("a duplicate unique key is a 409 that names the field but not the value", async () => {
    await Food.init();
    await request(app)
      .post("/foods")
      .set(bearer(alice))
      .send({ name: "DUPLICATE-NAME" })
      .expect(201);
    const res = await request(app)
      .post("/foods")
      .set(bearer(alice))
      .send({ name: "DUPLICATE-NAME" });
    assertErrorShape(res.body, 409, "conflict");
    assert.match(res.body.detail, /name/);
    assert.doesNotMatch(JSON.stringify(res.body), /DUPLICATE-NAME/);
  });

  test("500 bodies carry no internals", async () => {
    const { TerrenoApp } = await import("../../src/app/TerrenoApp.js");
    const { modelRouter } = await import("../../src/rest/modelRouter.js");
    const { IsAny } = await import("../../src/core/permissions.js");
    const logged: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => logged.push(args);
    try {
      const broken = new TerrenoApp()
        .register(
          modelRouter(Food, {
            permissions: { list: [IsAny] },
            queryFilter: () => {
              throw new Error("SECRET internal stack detail");
            },
          }),
        )
        .build();
      const res = await request(broken).get("/foods");
      assertErrorShape(res.body, 500, "internal");
      assert.doesNotMatch(JSON.stringify(res.body), /SECRET|stack/);
      assert.equal(logged.length, 1, "the cause is logged server-side");
    } finally {
      console.error = original;
    }
  });
});
