/** The example's todos_complete action: idempotent, completedAt server-set and read-only, owner only. */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import request from "supertest";
import { createExampleApp } from "../../example-backend/app.js";
import { bearer, signedUp } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { connectClient, toolError, useListening } from "../helpers/mcpClients.js";

useTestDatabase("example_complete");

describe("example todos_complete", () => {
  const app = createExampleApp({ jwtSecret: "example-test-secret-long-enough-for-hs256", env: {} });
  const express = app.build();
  const server = useListening(express);
  const [ada, bob] = signedUp(express, "ada", "bob");
  let todoId: string;

  before(async () => {
    const res = await request(express).post("/todos").set(bearer(ada)).send({ title: "finish" });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    todoId = res.body.data.id;
  });

  test("the tool's annotations: idempotent, not destructive, not read-only", () => {
    const tool = app.toolDefinitions.find((t) => t.name === "todos_complete");
    assert.ok(tool);
    assert.equal(tool.annotations.idempotentHint, true);
    assert.equal(tool.annotations.destructiveHint, false);
    assert.equal(tool.annotations.readOnlyHint, false);
  });

  test("completedAt is read-only for clients", async () => {
    const res = await request(express)
      .patch(`/todos/${todoId}`)
      .set(bearer(ada))
      .send({ completedAt: new Date().toISOString() });
    // Only todos_complete sets it; a read may send it back unchanged, nothing else.
    assert.equal(res.status, 400);
    assert.match(res.body.fields.completedAt, /is read-only/);
  });

  test("completing twice keeps the first completedAt, on every surface", async () => {
    const first = await request(express).post(`/todos/${todoId}/complete`).set(bearer(ada));
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.data.completed, true);
    const completedAt = first.body.data.completedAt;
    assert.equal(typeof completedAt, "string");

    const client = await connectClient("v2-auto", server.url, ada.token);
    try {
      const again = await client.callTool("todos_complete", { id: todoId });
      assert.notEqual(again.isError, true);
      const data = again.structuredContent?.data as Record<string, unknown>;
      assert.equal(data.completedAt, completedAt);
      assert.equal("internalNote" in data, false);
    } finally {
      await client.close();
    }
    const third = await request(express).post(`/todos/${todoId}/complete`).set(bearer(ada));
    assert.equal(third.body.data.completedAt, completedAt);
  });

  test("another user's todo is not found", async () => {
    const rest = await request(express).post(`/todos/${todoId}/complete`).set(bearer(bob));
    assert.equal(rest.status, 404);
    const client = await connectClient("v1", server.url, bob.token);
    try {
      const result = await client.callTool("todos_complete", { id: todoId });
      assert.equal(result.isError, true);
      assert.equal(toolError(result).code, "not_found");
    } finally {
      await client.close();
    }
  });
});
