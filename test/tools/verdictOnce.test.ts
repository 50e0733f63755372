/**
 * One verdict per call: whatever surface a call comes through (MCP `tools/call`, getMCPTools,
 * REST `POST /tools/<name>`, the REST model routes, MCP `completion/complete`), each
 * method-level permission runs exactly once for it, for CRUD tools, action tools and custom
 * tools alike. And one `isWrite`: a tool's annotations, its
 * approval gate, its visibility to a read-only token and its REST write limit all agree.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { ModelMessage } from "ai";
import request from "supertest";
import { z } from "zod";
import { getMCPTools, mcpToolApproval } from "../../src/ai/getMCPTools.js";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { isWrite } from "../../src/core/isWrite.js";
import { IsAuthenticated, IsOwner, OwnerQueryFilter } from "../../src/core/permissions.js";
import type { PermissionMethod } from "../../src/core/types.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { canSeeTool } from "../../src/tools/visibleTools.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { connectClient, connectSdkClient, type Listening, listen } from "../helpers/mcpClients.js";
import { Todo, User } from "../helpers/models.js";
import { JWT_SECRET } from "../helpers/restApp.js";

useTestDatabase("verdict_once");

const calls = new Map<string, number>();
function counting(name: string, check: PermissionMethod = IsAuthenticated): PermissionMethod {
  return (method, user, doc) => {
    // Method-level checks run with no document; object-level ones (IsOwner) are another step.
    if (doc === undefined) calls.set(name, (calls.get(name) ?? 0) + 1);
    return check(method, user, doc);
  };
}

async function countedDuring(name: string, run: () => Promise<unknown>): Promise<number> {
  calls.clear();
  await run();
  return calls.get(name) ?? 0;
}

function buildApp() {
  const app = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } });
  app.register(
    modelRouter(Todo, {
      permissions: {
        list: [counting("list")],
        read: [counting("read", IsOwner)],
        create: [counting("create")],
      },
      queryFilter: OwnerQueryFilter,
      readOnlyFields: ["ownerId"],
      preCreate: (body, ctx) => ({ ...body, ownerId: ctx.user?.id }),
      mcp: { methods: ["list", "read", "create"] },
      actions: {
        tally: {
          scope: "collection",
          description: "Counts the caller's todos.",
          annotations: { readOnlyHint: true },
          permissions: [counting("tally")],
          handler: async (ctx) => ({ count: await Todo.countDocuments({ ownerId: ctx.user?.id }) }),
        },
      },
    }),
  );
  app.tool("echo", {
    description: "Echoes a word.",
    input: z.object({ word: z.string() }),
    permissions: [counting("echo")],
    handler: (_ctx, input) => ({ word: input.word }),
  });
  app.tool("peek", {
    description: "Reads nothing, says so.",
    annotations: { readOnlyHint: true },
    permissions: (user) => {
      calls.set("peek", (calls.get("peek") ?? 0) + 1);
      return Boolean(user);
    },
    handler: () => ({ peeked: true }),
  });
  return app;
}

describe("one verdict per tool call", () => {
  const app = buildApp();
  const express = app.build();
  let ada: TestUser;
  let server: Listening;

  before(async () => {
    ada = await signUp(express, "ada");
    server = await listen(express);
  });
  after(() => server.close());

  const cases: Array<[tool: string, permission: string, args: Record<string, unknown>]> = [
    ["todos_list", "list", {}],
    ["todos_create", "create", { title: "once" }],
    ["todos_tally", "tally", {}],
    ["echo", "echo", { word: "hi" }],
    ["peek", "peek", {}],
  ];

  test("MCP tools/call: each tool's permission runs once", async () => {
    const client = await connectClient("v2-auto", server.url, ada.token);
    try {
      for (const [tool, permission, args] of cases) {
        const count = await countedDuring(permission, async () => {
          const result = await client.callTool(tool, args);
          assert.ok(!result.isError, `${tool}: ${JSON.stringify(result)}`);
        });
        assert.equal(count, 1, `${tool} over MCP`);
      }
    } finally {
      await client.close();
    }
  });

  test("getMCPTools execute: each tool's permission runs once", async () => {
    const tools = getMCPTools({ app });
    const caller = { user: { id: ada.userId } };
    for (const [tool, permission, args] of cases) {
      const execute = tools[tool]?.execute;
      assert.ok(execute, tool);
      const count = await countedDuring(permission, async () => {
        const output = (await execute(args, {
          toolCallId: tool,
          messages: [] as ModelMessage[],
          context: caller,
        })) as { error?: unknown };
        assert.equal(output.error, undefined, `${tool}: ${JSON.stringify(output)}`);
      });
      assert.equal(count, 1, `${tool} via getMCPTools`);
    }
  });

  test("REST POST /tools/<name>: the custom tool's permission runs once", async () => {
    for (const [tool, args] of [
      ["echo", { word: "hi" }],
      ["peek", {}],
    ] as const) {
      const count = await countedDuring(tool, async () => {
        const res = await request(express).post(`/tools/${tool}`).set(bearer(ada)).send(args);
        assert.equal(res.status, 200, JSON.stringify(res.body));
      });
      assert.equal(count, 1, `${tool} over REST`);
    }
  });

  test("REST model routes: each route's permission runs once", async () => {
    const routes: Array<[permission: string, send: () => request.Test, status: number]> = [
      ["list", () => request(express).get("/todos").set(bearer(ada)), 200],
      ["create", () => request(express).post("/todos").set(bearer(ada)).send({ title: "r" }), 201],
      ["tally", () => request(express).post("/todos/tally").set(bearer(ada)).send({}), 200],
    ];
    for (const [permission, send, status] of routes) {
      const count = await countedDuring(permission, async () => {
        const res = await send();
        assert.equal(res.status, status, `${permission}: ${JSON.stringify(res.body)}`);
      });
      assert.equal(count, 1, `${permission} over REST`);
    }
  });

  test("MCP completion/complete: the list permission runs once", async () => {
    const client = await connectSdkClient("v2-auto", server.url, ada.token);
    try {
      const count = await countedDuring("list", async () => {
        const { completion } = await client.complete({
          ref: { type: "ref/resource", uri: "terreno://todos/{id}" },
          argument: { name: "id", value: "" },
        });
        assert.ok(completion.values.length > 0, JSON.stringify(completion));
      });
      assert.equal(count, 1);
    } finally {
      await client.close();
    }
  });

  test("a call refused on its arguments is judged once too", async () => {
    const client = await connectClient("v2-auto", server.url, ada.token);
    try {
      const count = await countedDuring("create", async () => {
        const result = await client.callTool("todos_create", { title: 7 });
        assert.equal(result.isError, true);
      });
      assert.equal(count, 1);
    } finally {
      await client.close();
    }
  });
});

describe("one isWrite for every consumer", () => {
  const app = buildApp();
  app.build();
  const reader = { id: "0123456789abcdef01234567", scopes: ["read"] };
  const session = { id: "0123456789abcdef01234567" };

  test("annotations, approvals and a read-only token's view agree with isWrite", async () => {
    const gated = getMCPTools({ app, requireApproval: true });
    const approval = mcpToolApproval(getMCPTools({ app })) as Record<string, unknown>;
    assert.ok(app.toolDefinitions.some((def) => isWrite(def)));
    assert.ok(app.toolDefinitions.some((def) => !isWrite(def)));
    for (const def of app.toolDefinitions) {
      const write = isWrite(def);
      assert.equal(def.annotations.readOnlyHint === true, !write, `${def.name}: annotations`);
      assert.equal(def.access.write, write, `${def.name}: the verdict's rule`);
      assert.equal(Boolean(gated[def.name]?.needsApproval), write, `${def.name}: approval`);
      assert.equal(approval[def.name] === "user-approval", write, `${def.name}: toolApproval`);
      if (await canSeeTool(def, session)) {
        assert.equal(await canSeeTool(def, reader), !write, `${def.name}: read-only token`);
      }
    }
  });
});
