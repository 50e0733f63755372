// Issue #36 item 1 on MCP, both eras: the tools' schemas carry `version` (read output, update and
// delete input), and a router with `requireVersion: true` refuses a write without one, clearly,
// writing nothing. (The lost update itself runs on every surface in test/contract.)
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import {
  CLIENT_KINDS,
  connectClient,
  type Listening,
  listen,
  toolError,
} from "../helpers/mcpClients.js";
import { Todo, User } from "../helpers/models.js";
import { JWT_SECRET, todoOptions } from "../helpers/restApp.js";

useTestDatabase("mcp_versions");

type Schema = { properties?: Record<string, { type?: string }>; required?: string[] };

describe("MCP tools with requireVersion", () => {
  let server: Listening;
  let alice: TestUser;

  before(async () => {
    const app = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
      .register(modelRouter(Todo, todoOptions({ requireVersion: true })))
      .build();
    server = await listen(app);
    alice = await signUp(app, "alice");
  });
  after(() => server.close());

  for (const kind of CLIENT_KINDS) {
    test(`${kind}: version is in the schemas, required for update and delete`, async () => {
      const client = await connectClient(kind, server.url, alice.token);
      try {
        const tools = await client.listTools();
        const schema = (name: string, key: "inputSchema" | "outputSchema") =>
          tools.find((t) => t.name === name)?.[key] as Schema;
        for (const name of ["todos_update", "todos_delete"]) {
          assert.equal(schema(name, "inputSchema").properties?.version?.type, "integer", name);
          assert.ok(schema(name, "inputSchema").required?.includes("version"), name);
        }
        const readData = schema("todos_read", "outputSchema").properties?.data as Schema;
        assert.equal(readData.properties?.version?.type, "integer");
      } finally {
        await client.close();
      }
    });

    test(`${kind}: a write without a version is refused and nothing changes; with one it applies`, async () => {
      const client = await connectClient(kind, server.url, alice.token);
      try {
        const created = await client.callTool("todos_create", { title: `strict ${kind}` });
        const id = (created.structuredContent?.data as { id: string } | undefined)?.id;
        const update = await client.callTool("todos_update", { id, title: "no version" });
        assert.equal(update.isError, true);
        assert.equal(toolError(update).code, "precondition_required");
        const remove = await client.callTool("todos_delete", { id });
        assert.equal(remove.isError, true);
        assert.ok(toolError(remove).fields?.version, "the refusal names version");
        assert.equal((await Todo.findById(id).lean<{ title: string }>())?.title, `strict ${kind}`);
        const updated = await client.callTool("todos_update", { id, title: "v0", version: 0 });
        assert.notEqual(updated.isError, true, JSON.stringify(updated));
        assert.equal(
          (updated.structuredContent?.data as { version: number } | undefined)?.version,
          1,
        );
        const deleted = await client.callTool("todos_delete", { id, version: 1 });
        assert.notEqual(deleted.isError, true, JSON.stringify(deleted));
      } finally {
        await client.close();
      }
    });
  }
});
