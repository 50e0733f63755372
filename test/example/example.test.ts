/**
 * The example app boots against the test database, the demo's MCP session passes end to end,
 * todos carry a priority, a checklist and a reminder, and only admins (ADMIN_EMAIL) see users.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { createExampleApp } from "../../example-backend/app.js";
import { runDemo } from "../../example-backend/demo.js";
import { bearer, PASSWORD, signedUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { connectClient, listen, useListening } from "../helpers/mcpClients.js";

import { EXAMPLE_TOOLS } from "../interop/clientChecks.js";

useTestDatabase("example");

const TOOLS: string[] = [...EXAMPLE_TOOLS];
const SECRET = "example-test-secret-long-enough-for-hs256";
/** The admin's email for this run (ADMIN_EMAIL); unique so reruns on one database start clean. */
const ADMIN_EMAIL = `root-${Date.now()}@example.com`;

async function signUpAs(express: Express, email: string): Promise<TestUser> {
  const res = await request(express)
    .post("/auth/signup")
    .send({ email, password: PASSWORD, name: "Root" });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { ...res.body.data, email };
}

async function listedTools(url: string, token: string): Promise<string[]> {
  const client = await connectClient("v2-auto", url, token);
  try {
    return (await client.listTools()).map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

describe("example app", () => {
  const app = createExampleApp({ jwtSecret: SECRET, env: {}, adminEmail: ADMIN_EMAIL });
  const express = app.build();
  const server = useListening(express);
  const [ada, bob] = signedUp(express, "ada", "bob");

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
    assert.match(output, /edited items kept their ids; the new item got its own/);
    assert.match(output, /\{reminder: \{channel: "push"\}\} -> push at .* \(time kept\)/);
    assert.match(output, /\{reminder: null, priority: null\} -> reminder none, priority none/);
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

  test("todos: priority 1-5 filters and sorts; checklist items and the reminder are checked", async () => {
    for (const priority of [3, 1, 5]) {
      const res = await request(express)
        .post("/todos")
        .set(bearer(bob))
        .send({ title: `p${priority}`, priority });
      assert.equal(res.status, 201);
    }
    const sorted = await request(express)
      .get("/todos")
      .query({ priority: { $gte: 2 }, sort: "-priority" })
      .set(bearer(bob));
    assert.equal(sorted.status, 200, JSON.stringify(sorted.body));
    assert.deepEqual(
      sorted.body.data.map((todo: { title: string }) => todo.title),
      ["p5", "p3"],
    );
    for (const priority of [0, 6]) {
      const refused = await request(express)
        .post("/todos")
        .set(bearer(bob))
        .send({ title: "out of range", priority });
      assert.equal(refused.status, 400);
      assert.ok(refused.body.fields.priority, JSON.stringify(refused.body));
    }
    const badItem = await request(express)
      .post("/todos")
      .set(bearer(bob))
      .send({ title: "long item", checklist: [{ text: "x".repeat(201) }] });
    assert.equal(badItem.status, 400);
    const noText = await request(express)
      .post("/todos")
      .set(bearer(bob))
      .send({ title: "no text", checklist: [{ done: true }] });
    assert.equal(noText.status, 400);
    const badChannel = await request(express)
      .post("/todos")
      .set(bearer(bob))
      .send({ title: "sms", reminder: { at: "2031-01-01T09:00:00.000Z", channel: "sms" } });
    assert.equal(badChannel.status, 400);

    const created = await request(express)
      .post("/todos")
      .set(bearer(bob))
      .send({
        title: "with parts",
        checklist: [{ text: "one" }],
        reminder: { at: "2031-01-01T09:00:00.000Z", channel: "push" },
      });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const [item] = created.body.data.checklist;
    assert.equal(item.text, "one");
    assert.equal(item.done, false);
    assert.match(item.id, /^[0-9a-f]{24}$/);
    assert.deepEqual(created.body.data.reminder, {
      at: "2031-01-01T09:00:00.000Z",
      channel: "push",
    });
  });

  test("a non-admin sees exactly the example's tools, never users_*, and /users is 403", async () => {
    const listed = await listedTools(server.url, ada.token);
    assert.deepEqual(listed, TOOLS);
    for (const name of [
      "foods_list",
      "foods_read",
      "todos_create",
      "todos_delete",
      "todos_list",
      "todos_read",
      "todos_update",
    ]) {
      assert.ok(listed.includes(name), name);
    }
    assert.ok(!listed.some((name) => name.startsWith("users_")));
    const rest = await request(express).get("/users").set(bearer(ada));
    assert.equal(rest.status, 403);
    // To a non-admin a hidden tool answers exactly as a tool that does not exist.
    const client = await connectClient("v2-legacy", server.url, ada.token);
    try {
      const hidden = await client.callTool("users_list", {}).catch((error: Error) => error);
      const unknown = await client.callTool("nope_list", {}).catch((error: Error) => error);
      assert.ok(hidden instanceof Error && unknown instanceof Error);
      assert.equal((hidden as { code?: number }).code, -32602);
      assert.equal((unknown as { code?: number }).code, -32602);
      assert.equal(
        hidden.message.replace("users_list", "NAME"),
        unknown.message.replace("nope_list", "NAME"),
      );
    } finally {
      await client.close();
    }
  });

  test("ADMIN_EMAIL's user is an admin: users_list and users_read show emails, never secrets", async () => {
    const root = await signUpAs(express, ADMIN_EMAIL);
    const me = await request(express).get("/auth/me").set(bearer(root));
    assert.equal(me.body.data.admin, true);
    assert.deepEqual(
      await listedTools(server.url, root.token),
      [...TOOLS, "users_list", "users_read"].sort(),
    );

    const rest = await request(express).get("/users").query({ email: ada.email }).set(bearer(root));
    assert.equal(rest.status, 200);
    assert.deepEqual(
      rest.body.data.map((user: { email: string }) => user.email),
      [ada.email],
    );
    const client = await connectClient("v2-auto", server.url, root.token);
    try {
      const listed = await client.callTool("users_list", { filter: { email: bob.email } });
      assert.notEqual(listed.isError, true, JSON.stringify(listed));
      const [row] = (listed.structuredContent?.data ?? []) as Array<Record<string, unknown>>;
      assert.equal(row.email, bob.email);
      assert.deepEqual(Object.keys(row).sort(), [
        "admin",
        "createdAt",
        "disabled",
        "email",
        "id",
        "name",
        "updatedAt",
        // Every record's version (issue #36): not a secret, the precondition of a write.
        "version",
      ]);
      const read = await client.callTool("users_read", { id: bob.userId });
      assert.equal(
        (read.structuredContent?.data as { email?: string } | undefined)?.email,
        bob.email,
      );
      for (const result of [listed, read]) {
        assert.doesNotMatch(JSON.stringify(result), /passwordHash|refreshToken|\$2[aby]\$/);
      }
      // Admins read; nobody writes users through tools or REST.
      const write = await request(express)
        .patch(`/users/${bob.userId}`)
        .set(bearer(root))
        .send({ admin: true });
      assert.equal(write.status, 405);
      const describe = (await client.listTools()).find((tool) => tool.name === "users_read");
      assert.doesNotMatch(JSON.stringify(describe), /passwordHash/);
    } finally {
      await client.close();
    }
    const asAda = await request(express).get(`/users/${bob.userId}`).set(bearer(ada));
    assert.equal(asAda.status, 403);
  });

  test("ADMIN_EMAIL promotes an existing user at login; other users stay as they are", async () => {
    const email = `late-admin-${Date.now()}@example.com`;
    // Signed up while the app had no ADMIN_EMAIL...
    const plain = createExampleApp({ jwtSecret: SECRET, env: {} }).build();
    const early = await signUpAs(plain, email);
    assert.equal((await request(plain).get("/auth/me").set(bearer(early))).body.data.admin, false);
    // ...then the app restarts with ADMIN_EMAIL set to that email, in another case.
    const promoting = createExampleApp({
      jwtSecret: SECRET,
      env: { ADMIN_EMAIL: `  ${email.toUpperCase()} ` },
    }).build();
    const other = await request(promoting)
      .post("/auth/login")
      .send({ email: ada.email, password: PASSWORD });
    assert.equal(other.status, 200);
    assert.equal(
      (await request(promoting).get("/auth/me").set(bearer(ada))).body.data.admin,
      false,
    );
    const login = await request(promoting).post("/auth/login").send({ email, password: PASSWORD });
    assert.equal(login.status, 200);
    const me = await request(promoting)
      .get("/auth/me")
      .set("Authorization", `Bearer ${login.body.data.token}`);
    assert.equal(me.body.data.admin, true);
    assert.throws(() => createExampleApp({ env: { ADMIN_EMAIL: "not-an-email" } }), /ADMIN_EMAIL/);
  });
});
