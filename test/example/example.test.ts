/** The example app boots against the test database, and the demo's MCP session passes end to end. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import request from "supertest";
import { createExampleApp } from "../../example-backend/app.js";
import { runDemo } from "../../example-backend/demo.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { connectClient, type Listening, listen } from "../helpers/mcpClients.js";

import { EXAMPLE_TOOLS } from "../interop/clientChecks.js";

useTestDatabase("example");

const TOOLS = [...EXAMPLE_TOOLS];

describe("example app", () => {
  const app = createExampleApp({ jwtSecret: "example-test-secret-long-enough-for-hs256", env: {} });
  const express = app.build();
  let server: Listening;
  let ada: TestUser;
  let bob: TestUser;

  before(async () => {
    server = await listen(express);
    ada = await signUp(express, "ada");
    bob = await signUp(express, "bob");
  });
  after(() => server.close());

  test("boots on a free port and serves REST and MCP", async () => {
    const anonymous = await fetch(`${server.url}/todos`);
    assert.equal(anonymous.status, 401);
    assert.equal(((await anonymous.json()) as { code?: string }).code, "unauthenticated");

    const client = await connectClient("v2-auto", server.url, ada.token);
    try {
      assert.deepEqual(
        (await client.listTools()).map((tool) => tool.name),
        TOOLS,
      );
    } finally {
      await client.close();
    }
  });

  test("runDemo passes end to end against it", async () => {
    const lines: string[] = [];
    const result = await runDemo(server.url, (line) => lines.push(line));
    assert.deepEqual(result.tools, TOOLS);
    const output = lines.join("\n");
    assert.match(output, /1\. Signed up demo-[0-9a-f]{8}@example\.com/);
    assert.match(output, /todos_read fields: .*\(no internalNote\)/);
    assert.match(output, /todos_update \{internalNote\} refused: validation_failed/);
    assert.match(output, /todos_create \{internalNote\} refused: validation_failed/);
    assert.match(output, /Demo passed\./);
  });

  test("runDemo says clearly when the server is not running", async () => {
    const closed = await listen(createExampleApp({ env: {} }).build());
    await closed.close();
    await assert.rejects(
      runDemo(closed.url, () => {}),
      {
        name: "DemoError",
        message: /Cannot reach the example server at .*npm run example/,
      },
    );
  });

  test("todos are private to their owner and ownerId is set by the server", async () => {
    const refused = await request(express)
      .post("/todos")
      .set(bearer(ada))
      .send({ title: "Mine", ownerId: bob.userId });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.fields.ownerId, "is not an allowed field");

    const created = await request(express)
      .post("/todos")
      .set(bearer(ada))
      .send({ title: "Mine", tags: ["a"], internalNote: "REST may set this" });
    assert.equal(created.status, 201);
    assert.equal(created.body.data.ownerId, ada.userId);
    assert.equal(created.body.data.completed, false);

    const bobsList = await request(express).get("/todos").set(bearer(bob));
    assert.equal(bobsList.status, 200);
    assert.ok(bobsList.body.data.every((todo: { ownerId: string }) => todo.ownerId === bob.userId));
    // Bob may not read it, so for him it does not exist.
    const bobReads = await request(express).get(`/todos/${created.body.data.id}`).set(bearer(bob));
    assert.equal(bobReads.status, 404);
  });

  test("foods: everyone signed in reads them, with the owner's name only; only the owner writes", async () => {
    const created = await request(express)
      .post("/foods")
      .set(bearer(ada))
      .send({ name: "Apple", calories: 95, eatenAt: "2026-01-02T12:00:00.000Z" });
    assert.equal(created.status, 201);
    const id = created.body.data.id;

    const read = await request(express).get(`/foods/${id}`).set(bearer(bob));
    assert.equal(read.status, 200);
    assert.deepEqual(Object.keys(read.body.data.ownerId).sort(), ["id", "name"]);
    assert.equal(read.body.data.ownerId.name, "ada");

    const negative = await request(express).post("/foods").set(bearer(ada)).send({
      name: "Air",
      calories: -1,
    });
    assert.equal(negative.status, 400);
    const bobEdits = await request(express)
      .patch(`/foods/${id}`)
      .set(bearer(bob))
      .send({ calories: 1 });
    assert.equal(bobEdits.status, 403);
    const bobDeletes = await request(express).delete(`/foods/${id}`).set(bearer(bob));
    assert.equal(bobDeletes.status, 403);
    const adaDeletes = await request(express).delete(`/foods/${id}`).set(bearer(ada));
    assert.equal(adaDeletes.status, 204);
  });

  test("the password hash never leaves the server", async () => {
    const me = await request(express).get("/auth/me").set(bearer(ada));
    assert.equal(me.status, 200);
    assert.equal(me.body.data.email, ada.email);
    assert.ok(!JSON.stringify(me.body).includes("passwordHash"));
  });
});
