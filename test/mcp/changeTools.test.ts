// Issue #36 item 4 through MCP (`mcp: {changes: true}`): with the official SDK v2 client an
// agent lists its own changes and undoes one (a confirmed write); another user's change is
// not found; a read-only token sees changes_list but cannot undo.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import request from "supertest";
import { bearer, signedUp } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import {
  connectClient,
  connectSdkClient,
  type ElicitAnswer,
  toolError,
  useListening,
} from "../helpers/mcpClients.js";
import { createTodo } from "../helpers/mcpWire.js";
import { restTerreno } from "../helpers/restApp.js";

useTestDatabase("mcp_change_tools");

/** The changes a `changes_list` result carries. */
function changesOf(result: { structuredContent?: Record<string, unknown> }): unknown[] {
  const data = result.structuredContent?.data as { changes?: unknown[] } | undefined;
  assert.ok(data?.changes, JSON.stringify(result));
  return data.changes;
}

type Result = {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: { data?: unknown };
};

describe("changes_list and changes_undo", () => {
  const terreno = restTerreno({ changes: true, mcp: { changes: true } });
  const app = terreno.build();
  const server = useListening(app);
  const [alice, bob] = signedUp(app, "alice", "bob");
  const accept: ElicitAnswer = { action: "accept", content: { confirm: true } };

  test("an agent updates a todo, lists its changes, undoes the update (confirmed): the todo is back", async () => {
    const id = await createTodo(app, alice, "as written");
    const asked: unknown[] = [];
    const client = await connectSdkClient("v2-auto", server.url, alice.token, {
      answer: () => accept,
      asked,
    });
    try {
      const tools = (await (
        client as unknown as { listTools(): Promise<{ tools: Array<Record<string, unknown>> }> }
      ).listTools()) as { tools: Array<{ name: string; annotations?: Record<string, unknown> }> };
      const byName = new Map(tools.tools.map((tool) => [tool.name, tool]));
      assert.equal(byName.get("changes_list")?.annotations?.readOnlyHint, true);
      assert.equal(byName.get("changes_undo")?.annotations?.destructiveHint, true);

      const updated = (await client.callTool({
        name: "todos_update",
        arguments: { id, title: "by agent" },
      })) as Result;
      assert.ok(!updated.isError, JSON.stringify(updated.content));

      const listed = (await client.callTool({
        name: "changes_list",
        arguments: { record: id },
      })) as Result;
      assert.ok(!listed.isError, JSON.stringify(listed.content));
      const changes = changesOf(listed) as Array<{
        id: string;
        action: string;
        record: string;
        changes: unknown[];
      }>;
      assert.deepEqual(
        changes.map((change) => change.action),
        ["update", "create"],
      );
      assert.ok(changes.every((change) => change.record === id));
      assert.deepEqual(changes[0]?.changes, [
        { path: "title", before: '"as written"', after: '"by agent"' },
      ]);

      const undone = (await client.callTool({
        name: "changes_undo",
        arguments: { id: changes[0]?.id },
      })) as Result;
      assert.ok(!undone.isError, JSON.stringify(undone.content));
      assert.equal(asked.length, 1, "the undo was confirmed");
      assert.equal(
        (undone.structuredContent?.data as { title?: string } | undefined)?.title,
        "as written",
      );
    } finally {
      await client.close();
    }
    const read = await request(app).get(`/todos/${id}`).set(bearer(alice)).expect(200);
    assert.equal(read.body.data.title, "as written");
  });

  test("declining the confirmation writes nothing", async () => {
    const id = await createTodo(app, alice, "kept");
    const [created] = (
      await request(app).get(`/changes?record=${id}`).set(bearer(alice)).expect(200)
    ).body.data;
    const client = await connectSdkClient("v2-auto", server.url, alice.token, {
      answer: () => ({ action: "decline" }),
      asked: [],
    });
    try {
      const result = (await client.callTool({
        name: "changes_undo",
        arguments: { id: created.id },
      })) as Result;
      assert.equal(result.isError, true);
    } finally {
      await client.close();
    }
    await request(app).get(`/todos/${id}`).set(bearer(alice)).expect(200);
  });

  test("another user's change id is not_found, and their list is empty", async () => {
    const id = await createTodo(app, alice, "alice's");
    const [change] = (
      await request(app).get(`/changes?record=${id}`).set(bearer(alice)).expect(200)
    ).body.data;
    const client = await connectClient("v2-auto", server.url, bob.token);
    try {
      const result = await client.callTool("changes_undo", { id: change.id });
      assert.equal(result.isError, true);
      assert.equal(toolError(result).code, "not_found");
      const listed = await client.callTool("changes_list", { record: id });
      assert.deepEqual(changesOf(listed), []);
    } finally {
      await client.close();
    }
    await request(app).get(`/todos/${id}`).set(bearer(alice)).expect(200);
  });

  test("a read-only token lists changes but cannot undo", async () => {
    const id = await createTodo(app, alice, "read only");
    const [change] = (
      await request(app).get(`/changes?record=${id}`).set(bearer(alice)).expect(200)
    ).body.data;
    const token = await request(app)
      .post("/auth/tokens")
      .set(bearer(alice))
      .send({ name: "reader", scope: "read" })
      .expect(201);
    const client = await connectClient("v2-auto", server.url, token.body.data.token);
    try {
      const names = (await client.listTools()).map((tool) => tool.name);
      assert.ok(names.includes("changes_list"));
      assert.ok(!names.includes("changes_undo"));
      const listed = await client.callTool("changes_list", { record: id });
      assert.equal(changesOf(listed).length, 1);
      // A write tool is not among a read token's tools: calling it is an unknown tool.
      await assert.rejects(client.callTool("changes_undo", { id: change.id }), /unknown_tool/);
    } finally {
      await client.close();
    }
    await request(app).get(`/todos/${id}`).set(bearer(alice)).expect(200);
  });

  test("a hidden field's values never leave through changes_list", async () => {
    const id = await createTodo(app, alice, "with a note");
    await request(app)
      .patch(`/todos/${id}`)
      .set(bearer(alice))
      .send({ internalNote: "secret note" })
      .expect(200);
    const client = await connectClient("v2-auto", server.url, alice.token);
    try {
      const listed = await client.callTool("changes_list", { record: id, limit: 1 });
      assert.deepEqual((changesOf(listed)[0] as { changes: unknown[] }).changes, [
        { path: "internalNote", hidden: true },
      ]);
      assert.ok(!JSON.stringify(listed).includes("secret note"));
    } finally {
      await client.close();
    }
  });

  test("the tools are in getMCPTools' catalog too, and off without mcp.changes", async () => {
    const names = terreno.toolDefinitions.map((tool) => tool.name);
    assert.ok(names.includes("changes_list") && names.includes("changes_undo"));
    const plain = restTerreno({ changes: true }).toolDefinitions.map((tool) => tool.name);
    assert.ok(!plain.includes("changes_list"));
  });
});
