// Issue #12, the REST-only side of merge patches: the merge-patch media type on PATCH, and /mcp
// keeping its own parser. What a patch means (nested objects, null, arrays, maps, Mixed values,
// subdocuments, hooks) is the same on every surface: test/contract/cases/mergePatch.ts.

import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { Todo, User } from "../helpers/models.js";
import { JWT_SECRET, todoOptions } from "../helpers/restApp.js";

useTestDatabase("rest_merge_patch");

describe("REST merge patch", () => {
  let app: Express;
  let alice: TestUser;

  before(async () => {
    app = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
      .register(modelRouter(Todo, todoOptions()))
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
});
