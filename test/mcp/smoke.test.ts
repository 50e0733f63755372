import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { CLIENT_KINDS, connectClient, type Listening, listen } from "../helpers/mcpClients.js";
import { buildRestApp } from "../helpers/restApp.js";

useTestDatabase("mcp_smoke");

describe("MCP smoke", () => {
  let server: Listening;
  let alice: TestUser;
  before(async () => {
    const app = buildRestApp();
    server = await listen(app);
    alice = await signUp(app, "alice");
    void bearer;
  });
  after(() => server.close());

  for (const kind of CLIENT_KINDS) {
    test(`${kind}: lists and calls tools`, async () => {
      const client = await connectClient(kind, server.url, alice.token);
      const tools = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        [
          "foods_list",
          "foods_read",
          "todos_create",
          "todos_delete",
          "todos_list",
          "todos_read",
          "todos_update",
        ],
      );
      const created = await client.callTool("todos_create", { title: `from ${kind}` });
      assert.equal(created.isError, undefined, JSON.stringify(created));
      const listed = await client.callTool("todos_list", {});
      assert.ok(((listed.structuredContent?.data as unknown[]) ?? []).length >= 1);
      await client.close();
    });
  }
});
