import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import request from "supertest";
import { bearer, signedUp } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import {
  CLIENT_KINDS,
  connectClient,
  type McpTestClient,
  toolError,
  useListening,
} from "../helpers/mcpClients.js";
import { buildRestApp, hookCalls } from "../helpers/restApp.js";

useTestDatabase("mcp_exec");

const HIDDEN = "TOP-SECRET-INTERNAL-NOTE";

// Permissions (404 for other users' documents), hidden fields, filters, limits, validation,
// conflicts and internal errors are asserted once for every surface and client in
// test/contract; this file keeps the MCP result envelope and REST/MCP parity.
describe("MCP tool execution", () => {
  const app = buildRestApp();
  const server = useListening(app);
  const [alice] = signedUp(app, "alice");

  before(async () => {
    await request(app)
      .post("/todos")
      .set(bearer(alice))
      .send({ title: "alice's plan", internalNote: HIDDEN, priority: 2 })
      .expect(201);
  });

  for (const kind of CLIENT_KINDS) {
    describe(`with the ${kind} client`, () => {
      let asAlice: McpTestClient;
      before(async () => {
        asAlice = await connectClient(kind, server.url, alice.token);
      });
      after(() => asAlice.close());

      test("create, read, update, list and delete succeed with structuredContent and a text copy", async () => {
        const created = await asAlice.callTool("todos_create", {
          title: `via ${kind}`,
          tags: ["mcp"],
        });
        assert.equal(created.isError, undefined, JSON.stringify(created));
        const doc = (created.structuredContent as { data: Record<string, unknown> }).data;
        assert.equal(doc.title, `via ${kind}`);
        assert.equal((doc.ownerId as { id: string }).id, alice.userId, "preCreate set the owner");
        assert.deepEqual(JSON.parse(created.content[0].text ?? ""), created.structuredContent);

        const read = await asAlice.callTool("todos_read", { id: doc.id as string });
        assert.equal(
          (read.structuredContent as { data: { title: string } }).data.title,
          `via ${kind}`,
        );

        const updated = await asAlice.callTool("todos_update", {
          id: doc.id as string,
          completed: true,
        });
        assert.equal(
          (updated.structuredContent as { data: { completed: boolean } }).data.completed,
          true,
        );

        const listed = await asAlice.callTool("todos_list", {
          filter: { tags: "mcp", completed: true },
        });
        const page = listed.structuredContent as { data: Array<{ id: string }>; total: number };
        assert.ok(page.data.some((t) => t.id === doc.id));

        const deleted = await asAlice.callTool("todos_delete", { id: doc.id as string });
        assert.deepEqual(deleted.structuredContent, { data: { id: doc.id, deleted: true } });
        const gone = await asAlice.callTool("todos_read", { id: doc.id as string });
        assert.equal(gone.isError, true);
        assert.equal(toolError(gone).code, "not_found");
      });

      test("a missing id is an isError result naming id", async () => {
        const missingId = await asAlice.callTool("todos_read", {});
        assert.equal(missingId.isError, true);
        assert.equal(toolError(missingId).code, "validation_failed");
        assert.equal(toolError(missingId).fields?.id, "is required");
      });
    });
  }

  test("REST and MCP return the same documents for the same user and query", async () => {
    const client = await connectClient("v2-auto", server.url, alice.token);
    const rest = await request(app).get("/todos?priority=2&sort=title&limit=5").set(bearer(alice));
    const mcp = await client.callTool("todos_list", {
      filter: { priority: 2 },
      sort: "title",
      limit: 5,
    });
    const strip = (docs: Array<Record<string, unknown>>) =>
      docs.map(({ internalNote: _hidden, ...rest }) => rest);
    const mcpPage = mcp.structuredContent as {
      data: Array<Record<string, unknown>>;
      total: number;
    };
    assert.deepEqual(mcpPage.data, strip(rest.body.data));
    assert.equal(mcpPage.total, rest.body.total);
    assert.ok(mcpPage.total >= 1);
    await client.close();
  });

  test("hooks run over MCP and see the transport", async () => {
    const client = await connectClient("v1", server.url, alice.token);
    hookCalls.length = 0;
    await client.callTool("todos_create", { title: "hooked" });
    assert.deepEqual(hookCalls, ["preCreate:mcp", "postCreate"]);
    await client.close();
  });
});
