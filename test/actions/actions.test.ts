/**
 * Actions (`modelRouter(M, {actions})`) and custom tools (`app.tool(...)`) over REST
 * (supertest), real MCP clients and getMCPTools: permissions (404 / 403), hidden fields,
 * validation with field paths, the error table (no secret leaks), audit, and per-caller
 * tool lists.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import request from "supertest";
import { z } from "zod";
import { getMCPTools } from "../../src/ai/getMCPTools.js";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { defineAction } from "../../src/core/actionTypes.js";
import { TerrenoError } from "../../src/core/errors.js";
import { IsAdmin, IsOwner } from "../../src/core/permissions.js";
import type { User as Caller } from "../../src/core/types.js";
import type { AuditEvent } from "../../src/ops/audit.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { bearer, signedUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import {
  CLIENT_KINDS,
  connectClient,
  listen,
  type McpTestClient,
  toolError,
  useListening,
} from "../helpers/mcpClients.js";
import { Todo, User } from "../helpers/models.js";
import { JWT_SECRET, todoOptions } from "../helpers/restApp.js";

useTestDatabase("actions");

const audit: AuditEvent[] = [];

function buildApp() {
  const app = new TerrenoApp({
    userModel: User,
    auth: { jwt: { secret: JWT_SECRET } },
    onAudit: (event) => {
      audit.push(event);
    },
    rateLimit: { writes: { points: 1000, duration: 60 }, auth: false },
  });
  app.register(
    modelRouter(
      Todo,
      todoOptions({
        actions: {
          complete: {
            scope: "instance",
            description: "Completes a todo.",
            permissions: [IsOwner],
            annotations: { idempotentHint: true, destructiveHint: false },
            handler: async (_ctx, todo) => {
              if (!todo.completed) {
                todo.completed = true;
                await todo.save();
              }
              return todo; // carries internalNote, hidden on the tools surface
            },
          },
          rename: defineAction({
            scope: "instance",
            description: "Renames a todo (not a locked one).",
            input: z.object({
              title: z.string().min(1).max(50),
              meta: z.object({ rank: z.number().int() }).optional(),
            }),
            permissions: [IsOwner, (_method, _user, obj) => obj?.title !== "locked"],
            handler: async (_ctx, todo, input) => {
              todo.title = input.title;
              await todo.save();
              return todo;
            },
          }),
          count_mine: {
            scope: "collection",
            description: "Counts the caller's todos.",
            output: z.object({ count: z.number().int() }),
            permissions: [(_method, user) => Boolean(user)],
            annotations: { readOnlyHint: true },
            handler: async (ctx) => ({
              count: await Todo.countDocuments({ ownerId: ctx.user?.id }),
            }),
          },
          explode: {
            scope: "collection",
            description: "Always fails.",
            permissions: [(_method, user) => Boolean(user)],
            handler: () => {
              throw new TerrenoError("internal", "secret database password hunter2");
            },
          },
          purge: {
            scope: "collection",
            description: "Admins only.",
            permissions: [IsAdmin],
            annotations: { destructiveHint: true },
            handler: () => ({ purged: 0 }),
          },
        },
      }),
    ),
  );
  app.tool("word_length", {
    description: "Counts the letters of a word.",
    input: z.object({ word: z.string().max(10) }),
    output: z.object({ length: z.number() }),
    annotations: { readOnlyHint: true },
    handler: (_ctx, input) => ({ length: input.word.length }),
  });
  app.tool("admin_reset", {
    description: "Admins only.",
    permissions: (user) => Boolean(user?.admin),
    handler: () => ({ reset: true }),
  });
  app.tool("leaky", {
    description: "Always fails.",
    handler: () => {
      throw new TerrenoError("internal", "secret database password hunter2");
    },
  });
  return app;
}

describe("actions and custom tools", () => {
  const app = buildApp();
  const express = app.build();
  const server = useListening(express);
  const [ada, bob, admin] = signedUp(express, "ada", "bob", "admin");
  let adaTodo: string;
  let lockedTodo: string;
  let bobTodo: string;

  const createTodo = async (user: TestUser, body: Record<string, unknown>) => {
    const res = await request(express).post("/todos").set(bearer(user)).send(body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data.id as string;
  };

  before(async () => {
    await User.updateOne({ _id: admin.userId }, { admin: true });
    adaTodo = await createTodo(ada, { title: "ada's", internalNote: "private" });
    lockedTodo = await createTodo(ada, { title: "locked" });
    bobTodo = await createTodo(bob, { title: "bob's" });
  });

  describe("REST", () => {
    test("POST /todos/:id/complete completes and answers {data} (REST sees every field)", async () => {
      const res = await request(express).post(`/todos/${adaTodo}/complete`).set(bearer(ada));
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.id, adaTodo);
      assert.equal(res.body.data.completed, true);
      assert.equal(res.body.data.internalNote, "private");
    });

    test("another user's todo is a 404; readable but not permitted is a 403", async () => {
      const other = await request(express).post(`/todos/${bobTodo}/complete`).set(bearer(ada));
      assert.equal(other.status, 404);
      assert.equal(other.body.code, "not_found");
      const locked = await request(express)
        .post(`/todos/${lockedTodo}/rename`)
        .set(bearer(ada))
        .send({ title: "x" });
      assert.equal(locked.status, 403);
      assert.equal(locked.body.code, "forbidden");
      const malformed = await request(express).post("/todos/nope/complete").set(bearer(ada));
      assert.equal(malformed.status, 404);
    });

    test("anonymous callers get 401", async () => {
      const res = await request(express).post(`/todos/${adaTodo}/complete`);
      assert.equal(res.status, 401);
    });

    test("bad input is a 400 validation_failed with dotted field paths", async () => {
      const res = await request(express)
        .post(`/todos/${adaTodo}/rename`)
        .set(bearer(ada))
        .send({ title: "", meta: { rank: 1.5 } });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, "validation_failed");
      assert.ok(res.body.fields.title, JSON.stringify(res.body));
      assert.ok(res.body.fields["meta.rank"], JSON.stringify(res.body));
    });

    test("collection actions: POST /todos/<name>, output checked, admins only where set", async () => {
      const count = await request(express).post("/todos/count_mine").set(bearer(ada));
      assert.equal(count.status, 200);
      assert.deepEqual(count.body, { data: { count: 2 } });
      const purge = await request(express).post("/todos/purge").set(bearer(ada));
      assert.equal(purge.status, 403);
      const purged = await request(express).post("/todos/purge").set(bearer(admin));
      assert.equal(purged.status, 200);
      assert.deepEqual(purged.body.data, { purged: 0 });
    });

    test("a handler's internal error leaks nothing", async () => {
      const res = await request(express).post("/todos/explode").set(bearer(ada));
      assert.equal(res.status, 500);
      assert.equal(res.body.code, "internal");
      assert.doesNotMatch(JSON.stringify(res.body), /secret|hunter2/);
    });

    test("writes are audited with the action's name; read-only actions are not", async () => {
      audit.length = 0;
      await request(express).post(`/todos/${bobTodo}/complete`).set(bearer(ada));
      await request(express).post("/todos/count_mine").set(bearer(ada));
      assert.equal(audit.length, 1);
      assert.equal(audit[0].action, "complete");
      assert.equal(audit[0].model, "Todo");
      assert.equal(audit[0].outcome, "not_found");
      assert.equal(audit[0].documentId, bobTodo);
    });
  });

  describe("tool definitions", () => {
    test("action and custom tools: names, annotations, portable schemas", () => {
      const byName = new Map(app.toolDefinitions.map((tool) => [tool.name, tool]));
      const complete = byName.get("todos_complete");
      assert.ok(complete);
      assert.equal(complete.annotations.readOnlyHint, false);
      assert.equal(complete.annotations.idempotentHint, true);
      assert.equal(complete.annotations.destructiveHint, false);
      assert.deepEqual(complete.inputSchema.required, ["id"]);
      const rename = byName.get("todos_rename");
      assert.ok(rename);
      assert.equal(rename.inputSchema.type, "object");
      assert.deepEqual(rename.inputSchema.required, ["id", "title"]);
      assert.equal(byName.get("todos_count_mine")?.annotations.readOnlyHint, true);
      assert.equal(byName.get("word_length")?.outputSchema.type, "object");
      for (const tool of app.toolDefinitions) {
        const text = JSON.stringify(tool.inputSchema) + JSON.stringify(tool.outputSchema);
        assert.doesNotMatch(text, /"\$ref"|"\$defs"|"\$schema"|"const"/, tool.name);
        assert.doesNotMatch(text, /"type":\[/, tool.name);
        assert.equal(tool.inputSchema.type, "object", tool.name);
        assert.equal(tool.outputSchema.type, "object", tool.name);
      }
    });

    test("bad names and non-object inputs fail at start-up", () => {
      assert.throws(() =>
        new TerrenoApp().tool("Bad-Name", { description: "x", handler: () => ({}) }),
      );
      assert.throws(() =>
        new TerrenoApp().tool("scalar_input", {
          description: "x",
          input: z.string() as unknown as z.ZodObject,
          handler: () => ({}),
        }),
      );
    });
  });

  for (const kind of CLIENT_KINDS) {
    describe(`MCP via ${kind}`, () => {
      let client: McpTestClient;
      before(async () => {
        client = await connectClient(kind, server.url, ada.token);
      });
      after(() => client.close());

      test("tools/list shows the caller's actions and custom tools only", async () => {
        const names = (await client.listTools()).map((tool) => tool.name);
        for (const name of ["todos_complete", "todos_rename", "todos_count_mine", "word_length"]) {
          assert.ok(names.includes(name), `${name} missing`);
        }
        assert.ok(!names.includes("todos_purge"), "admins-only action listed");
        assert.ok(!names.includes("admin_reset"), "admins-only custom tool listed");
      });

      test("instance action: hidden fields stripped, idempotent", async () => {
        const first = await client.callTool("todos_complete", { id: adaTodo });
        assert.notEqual(first.isError, true, JSON.stringify(first));
        const data = first.structuredContent?.data as Record<string, unknown>;
        assert.equal(data.id, adaTodo);
        assert.equal(data.completed, true);
        assert.equal("internalNote" in data, false);
        const again = await client.callTool("todos_complete", { id: adaTodo });
        assert.deepEqual(again.structuredContent, first.structuredContent);
      });

      test("404 for another user's todo, 403 when readable but refused", async () => {
        const other = await client.callTool("todos_complete", { id: bobTodo });
        assert.equal(other.isError, true);
        assert.equal(toolError(other).code, "not_found");
        const locked = await client.callTool("todos_rename", { id: lockedTodo, title: "x" });
        assert.equal(locked.isError, true);
        assert.equal(toolError(locked).code, "forbidden");
      });

      test("bad input: isError validation_failed with field paths", async () => {
        const bad = await client.callTool("todos_rename", {
          id: adaTodo,
          title: "",
          meta: { rank: "high" },
        });
        assert.equal(bad.isError, true);
        const error = toolError(bad);
        assert.equal(error.code, "validation_failed");
        assert.ok(error.fields?.title);
        assert.ok(error.fields?.["meta.rank"]);
        const custom = await client.callTool("word_length", { word: "far too long a word" });
        assert.equal(custom.isError, true);
        assert.ok(toolError(custom).fields?.word);
      });

      test("custom tools run; hidden ones answer as unknown; faults leak nothing", async () => {
        const count = await client.callTool("todos_count_mine", {});
        assert.deepEqual(count.structuredContent, { data: { count: 2 } });
        const ok = await client.callTool("word_length", { word: "hello" });
        assert.deepEqual(ok.structuredContent, { data: { length: 5 } });
        await assert.rejects(client.callTool("admin_reset", {}), (error: Error) => {
          assert.match(error.message, /unknown_tool|Unknown tool/);
          return true;
        });
        await assert.rejects(client.callTool("leaky", {}), (error: Error) => {
          assert.doesNotMatch(JSON.stringify(error) + error.message, /secret|hunter2/);
          return true;
        });
        await assert.rejects(client.callTool("todos_explode", {}), (error: Error) => {
          assert.doesNotMatch(JSON.stringify(error) + error.message, /secret|hunter2/);
          return true;
        });
      });
    });
  }

  test("an admin sees the admin-only action and custom tool", async () => {
    const client = await connectClient("v2-auto", server.url, admin.token);
    try {
      const names = (await client.listTools()).map((tool) => tool.name);
      assert.ok(names.includes("todos_purge"));
      assert.ok(names.includes("admin_reset"));
      const reset = await client.callTool("admin_reset", {});
      assert.deepEqual(reset.structuredContent, { data: { reset: true } });
    } finally {
      await client.close();
    }
  });

  test("a read-scoped token may run read-only actions and tools only", async () => {
    const made = await request(express)
      .post("/auth/tokens")
      .set(bearer(ada))
      .send({ name: "reader", scope: "read" });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const token = made.body.data.token as string;
    const auth = { Authorization: `Bearer ${token}` };
    const write = await request(express).post(`/todos/${adaTodo}/complete`).set(auth);
    assert.equal(write.status, 403);
    const readOnly = await request(express).post("/todos/count_mine").set(auth);
    assert.equal(readOnly.status, 200);
    const client = await connectClient("v2-auto", server.url, token);
    try {
      const names = (await client.listTools()).map((tool) => tool.name);
      assert.ok(names.includes("todos_count_mine"));
      assert.ok(names.includes("word_length"));
      assert.ok(!names.includes("todos_complete"));
      assert.ok(!names.includes("leaky"));
    } finally {
      await client.close();
    }
  });

  test("custom tools alone mount /mcp", async () => {
    const only = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
      .tool("ping", {
        description: "Answers pong.",
        annotations: { readOnlyHint: true },
        handler: () => ({ pong: true }),
      })
      .build();
    const running = await listen(only);
    const client = await connectClient("v1", running.url, ada.token);
    try {
      assert.deepEqual(
        (await client.listTools()).map((tool) => tool.name),
        ["ping"],
      );
      assert.deepEqual((await client.callTool("ping", {})).structuredContent, {
        data: { pong: true },
      });
    } finally {
      await client.close();
      await running.close();
    }
  });

  describe("getMCPTools", () => {
    const asUser = (user: TestUser): Caller => ({ id: user.userId });

    test("the set holds the caller's actions and custom tools", () => {
      const tools = getMCPTools({ app, user: asUser(ada) });
      assert.ok(tools.todos_complete);
      assert.ok(tools.word_length);
      assert.equal(tools.todos_purge, undefined);
      assert.equal(tools.admin_reset, undefined);
    });

    test("same pipeline: 404, hidden fields, validation, no leaks", async () => {
      const tools = getMCPTools({ app, user: asUser(ada) });
      const run = (name: string, input: Record<string, unknown>) =>
        // biome-ignore lint/suspicious/noExplicitAny: the AI SDK's execute options are not needed here.
        (tools[name].execute as any)(input, { toolCallId: "t", messages: [] });
      const done = await run("todos_complete", { id: adaTodo });
      assert.equal(done.data.completed, true);
      assert.equal("internalNote" in done.data, false);
      assert.equal((await run("todos_complete", { id: bobTodo })).error.code, "not_found");
      const bad = await run("todos_rename", { id: adaTodo, title: "" });
      assert.equal(bad.error.code, "validation_failed");
      assert.ok(bad.error.fields.title);
      audit.length = 0;
      assert.deepEqual(await run("word_length", { word: "abc" }), { data: { length: 3 } });
      const leak = await run("leaky", {});
      assert.equal(leak.error.code, "internal");
      assert.doesNotMatch(JSON.stringify(leak), /secret|hunter2/);
      // Read-only tools are not audited; a custom write is, with model "tool".
      assert.deepEqual(
        audit.map((event) => [event.surface, event.action, event.model, event.outcome]),
        [["ai", "leaky", "tool", "internal"]],
      );
    });
  });
});
