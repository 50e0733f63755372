import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import {
  CLIENT_KINDS,
  connectClient,
  type Listening,
  listen,
  type McpTestClient,
  toolError,
} from "../helpers/mcpClients.js";
import { Todo } from "../helpers/models.js";
import { buildRestApp, hookCalls } from "../helpers/restApp.js";

useTestDatabase("mcp_exec");

const HIDDEN = "TOP-SECRET-INTERNAL-NOTE";

describe("MCP tool execution", () => {
  let app: Express;
  let server: Listening;
  let alice: TestUser;
  let bob: TestUser;
  let aliceTodoId: string;

  before(async () => {
    app = buildRestApp();
    server = await listen(app);
    alice = await signUp(app, "alice");
    bob = await signUp(app, "bob");
    const created = await request(app)
      .post("/todos")
      .set(bearer(alice))
      .send({ title: "alice's plan", internalNote: HIDDEN, priority: 2 });
    aliceTodoId = created.body.data.id;
  });
  after(() => server.close());

  for (const kind of CLIENT_KINDS) {
    describe(`with the ${kind} client`, () => {
      let asAlice: McpTestClient;
      let asBob: McpTestClient;
      before(async () => {
        asAlice = await connectClient(kind, server.url, alice.token);
        asBob = await connectClient(kind, server.url, bob.token);
      });
      after(async () => {
        await asAlice.close();
        await asBob.close();
      });

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

      test("user B can never read, update or delete user A's todo", async () => {
        for (const [name, args] of [
          ["todos_read", { id: aliceTodoId }],
          ["todos_update", { id: aliceTodoId, title: "pwned" }],
          ["todos_delete", { id: aliceTodoId }],
        ] as const) {
          const result = await asBob.callTool(name, args);
          assert.equal(result.isError, true, name);
          assert.equal(toolError(result).code, "forbidden", name);
          assert.doesNotMatch(JSON.stringify(result), /alice's plan/);
        }
        const stored = (await Todo.findById(aliceTodoId).lean()) as {
          title: string;
          deleted: boolean;
        } | null;
        assert.equal(stored?.title, "alice's plan");
        assert.equal(stored?.deleted, false);
        const list = await asBob.callTool("todos_list", { filter: { ownerId: alice.userId } });
        assert.equal(
          (list.structuredContent as { total: number }).total,
          0,
          "queryFilter scopes MCP lists",
        );
      });

      test("invalid arguments are an isError result naming the path", async () => {
        const result = await asAlice.callTool("todos_create", { title: 42, priority: 9 });
        assert.equal(result.isError, true);
        const error = toolError(result);
        assert.equal(error.code, "validation_failed");
        assert.ok(error.fields?.title);
        assert.ok(error.fields?.priority);
        const missingId = await asAlice.callTool("todos_read", {});
        assert.equal(toolError(missingId).fields?.id, "is required");
        const badId = await asAlice.callTool("todos_read", { id: "0123456789abcdef01234567" });
        assert.equal(toolError(badId).code, "not_found");
      });

      test("hidden fields never appear in results, populated documents or errors", async () => {
        const read = await asAlice.callTool("todos_read", { id: aliceTodoId });
        const text = JSON.stringify(read);
        assert.doesNotMatch(text, new RegExp(HIDDEN));
        assert.doesNotMatch(text, /internalNote|passwordHash/);
        const data = (read.structuredContent as { data: { ownerId: { name: string } } }).data;
        assert.equal(data.ownerId.name, "alice", "population works over MCP");
        const list = await asAlice.callTool("todos_list", {});
        assert.doesNotMatch(
          JSON.stringify(list),
          new RegExp(`${HIDDEN}|internalNote|passwordHash`),
        );
      });

      test("filtering, sorting or writing hidden fields is refused without an oracle", async () => {
        const cases: Array<[string, Record<string, unknown>]> = [
          ["todos_list", { filter: { internalNote: HIDDEN } }],
          ["todos_list", { sort: "internalNote" }],
          ["todos_create", { title: "x", internalNote: "sneaky" }],
          ["todos_update", { id: aliceTodoId, internalNote: "sneaky" }],
          ["todos_create", { title: "x", ownerId: bob.userId }],
          ["todos_create", { title: "x", _id: "0123456789abcdef01234567" }],
        ];
        for (const [name, args] of cases) {
          const result = await asAlice.callTool(name, args);
          assert.equal(result.isError, true, `${name} ${JSON.stringify(args)}`);
          assert.equal(toolError(result).code, "validation_failed");
          assert.doesNotMatch(JSON.stringify(result), new RegExp(HIDDEN));
        }
        const stored = (await Todo.findById(aliceTodoId).lean()) as { internalNote: string } | null;
        assert.equal(stored?.internalNote, HIDDEN);
      });

      test("$where, $expr and $function are refused at any depth", async () => {
        for (const operator of ["$where", "$expr", "$function"]) {
          for (const args of [
            { filter: { title: { [operator]: "sleep(100)" } } },
            { filter: { [operator]: "1" } },
            { filter: { tags: { $in: [{ [operator]: 1 }] } } },
          ]) {
            const result = await asAlice.callTool("todos_list", args);
            assert.equal(result.isError, true, JSON.stringify(args));
            assert.equal(toolError(result).code, "validation_failed");
          }
          const body = await asAlice.callTool("todos_create", {
            title: "x",
            tags: [{ [operator]: "1" }],
          });
          assert.equal(body.isError, true);
        }
      });

      test("maxLimit clamps the limit", async () => {
        for (let i = 0; i < 7; i++)
          await asAlice.callTool("todos_create", { title: `bulk ${kind} ${i}` });
        const result = await asAlice.callTool("todos_list", { limit: 1000 });
        const page = result.structuredContent as { limit: number; data: unknown[]; more: boolean };
        assert.equal(page.limit, 5);
        assert.equal(page.data.length, 5);
        assert.equal(page.more, true);
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
    await client.callTool("todos_create", { title: "hooked" });
    assert.ok(hookCalls.includes("preCreate:mcp"));
    const refused = await client.callTool("todos_create", { title: "forbidden by hook" });
    assert.equal(toolError(refused).code, "forbidden");
    await client.close();
  });
});
