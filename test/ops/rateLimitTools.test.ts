/**
 * Tool-call limits: MCP `tools/call` (a real SDK client, and raw HTTP for the details) and
 * getMCPTools spend the same per-caller points; a router's own `rateLimit` covers its tools.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ToolSet } from "ai";
import request from "supertest";
import { getMCPTools } from "../../src/ai/index.js";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { signedUp, signUp } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import {
  type ClientKind,
  connectClient,
  type McpTestClient,
  useListening,
} from "../helpers/mcpClients.js";
import { Food, Todo, User } from "../helpers/models.js";
import { foodOptions, JWT_SECRET, todoOptions } from "../helpers/restApp.js";

useTestDatabase("ops_rate_limit_tools");

const ACCEPT = "application/json, text/event-stream";

function callTool(url: string, token: string, name: string, id: number | string = 7) {
  return request(url)
    .post("/mcp")
    .set("Accept", ACCEPT)
    .set("Content-Type", "application/json")
    .set("Authorization", `Bearer ${token}`)
    .send({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {} } });
}

function assertJsonRpcRateLimited(res: request.Response, id: number | string): number {
  assert.equal(res.status, 429, JSON.stringify(res.body));
  assert.match(res.headers["retry-after"] ?? "", /^[1-9][0-9]*$/);
  assert.equal(res.body.jsonrpc, "2.0");
  assert.equal(res.body.id, id);
  assert.equal(res.body.error.code, -32000);
  assert.match(res.body.error.message, /^rate_limited: Too many tool calls\./);
  assert.equal(res.body.error.data.error.code, "rate_limited");
  assert.equal(res.body.error.data.error.status, 429);
  return Number(res.headers["retry-after"]);
}

/** SDK v2 throws SdkHttpError (`data.status`), v1 StreamableHTTPError (`code`): both say 429. */
function assertSdkRateLimited(thrown: unknown): true {
  const error = thrown as Error & { code?: unknown; data?: { status?: unknown } };
  assert.equal(error.data?.status ?? error.code, 429);
  assert.match(error.message, /"message":"rate_limited: Too many tool calls\./);
  return true;
}

async function run(tools: ToolSet, name: string) {
  const execute = tools[name]?.execute;
  assert.ok(execute, `${name} has execute`);
  return (await execute({}, { toolCallId: "t", messages: [], context: {} })) as Record<
    string,
    unknown
  >;
}

describe("tool-call rate limits", () => {
  const terreno = new TerrenoApp({
    userModel: User,
    auth: { jwt: { secret: JWT_SECRET } },
    rateLimit: { toolCalls: { points: 4, duration: 60 } },
  })
    .register(modelRouter(Todo, todoOptions()))
    .register(modelRouter(Food, foodOptions({ rateLimit: { points: 2, duration: 60 } })));
  const app = terreno.build();
  const server = useListening(app);
  const [ada, bob, cy] = signedUp(app, "ada", "bob", "cy");

  test("MCP and AI tools share the caller's points; then 429 / {error: rate_limited}", async () => {
    const client = await connectClient("v2-auto", server.url, ada.token);
    try {
      // Two calls over MCP, two in process: the same four points.
      for (let i = 0; i < 2; i++) {
        const result = await client.callTool("todos_list", {});
        assert.ok(!result.isError);
      }
      const tools = getMCPTools({ app: terreno, user: { id: ada.userId } });
      for (let i = 0; i < 2; i++) assert.ok("data" in (await run(tools, "todos_list")));

      const refused = await run(tools, "todos_list");
      assert.deepEqual(Object.keys(refused), ["error"]);
      const error = refused.error as { code: string; status: number; detail: string };
      assert.equal(error.code, "rate_limited");
      assert.equal(error.status, 429);
      assert.match(error.detail, /^Too many tool calls\. Retry in [1-9]\d* s\.$/);

      // The SDK client gets the HTTP 429 and throws, with the JSON-RPC error in its message.
      await assert.rejects(client.callTool("todos_list", {}), assertSdkRateLimited);
    } finally {
      await client.close();
    }

    // The details over raw HTTP: 429, Retry-After, a JSON-RPC error for that request's id.
    const seconds = assertJsonRpcRateLimited(
      await callTool(server.url, ada.token, "todos_list", 7),
      7,
    );
    assert.ok(seconds <= 60);
    assertJsonRpcRateLimited(await callTool(server.url, ada.token, "todos_list", "req-8"), "req-8");
    // tools/list is not a tool call.
    const list = await request(server.url)
      .post("/mcp")
      .set("Accept", ACCEPT)
      .set("Content-Type", "application/json")
      .set("Authorization", `Bearer ${ada.token}`)
      .send({ jsonrpc: "2.0", id: 9, method: "tools/list" });
    assert.equal(list.status, 200);
    assert.ok(list.body.result.tools.length > 0);
  });

  test("resources/list and completion/complete read records too: they spend the same points, then 429", async () => {
    const user = await signUp(app, "reso");
    const rpc = (id: number, method: string, params: Record<string, unknown>) =>
      request(server.url)
        .post("/mcp")
        .set("Accept", ACCEPT)
        .set("Content-Type", "application/json")
        .set("Authorization", `Bearer ${user.token}`)
        .send({ jsonrpc: "2.0", id, method, params });
    const complete = (id: number) =>
      rpc(id, "completion/complete", {
        ref: { type: "ref/resource", uri: "terreno://todos/{id}" },
        argument: { name: "id", value: "" },
      });
    for (let id = 1; id <= 2; id++) {
      const listed = await rpc(id, "resources/list", {});
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      assert.ok(Array.isArray(listed.body.result.resources));
    }
    for (let id = 3; id <= 4; id++) {
      const completed = await complete(id);
      assert.equal(completed.status, 200, JSON.stringify(completed.body));
      assert.ok(Array.isArray(completed.body.result.completion.values));
    }
    assertJsonRpcRateLimited(await complete(5), 5);
    assertJsonRpcRateLimited(await rpc(6, "resources/list", {}), 6);
    assertJsonRpcRateLimited(await callTool(server.url, user.token, "todos_list", 7), 7);
  });

  for (const kind of ["v2-legacy", "v1"] as ClientKind[]) {
    test(`the ${kind} client gets the 429 too`, async () => {
      const user = await signUp(app, kind.replace("-", ""));
      let client: McpTestClient | undefined;
      try {
        client = await connectClient(kind, server.url, user.token);
        for (let i = 0; i < 4; i++) assert.ok(!(await client.callTool("todos_list", {})).isError);
        await assert.rejects(client.callTool("todos_list", {}), assertSdkRateLimited);
      } finally {
        await client?.close();
      }
    });
  }

  test("a router's own rateLimit covers its tools, in a bucket of its own", async () => {
    for (let i = 0; i < 2; i++) {
      const res = await callTool(server.url, bob.token, "foods_list", i);
      assert.equal(res.status, 200);
      assert.ok(!res.body.result.isError);
    }
    assertJsonRpcRateLimited(await callTool(server.url, bob.token, "foods_list", 3), 3);
    // The app's bucket is untouched by them.
    assert.equal((await callTool(server.url, bob.token, "todos_list", 4)).status, 200);
    // And getMCPTools answers the same for the same caller.
    const tools = getMCPTools({ app: terreno, user: { id: bob.userId } });
    const refused = await run(tools, "foods_list");
    assert.equal((refused.error as { code: string }).code, "rate_limited");
  });

  test("getMCPTools without the app spends no points (no app, no limits)", async () => {
    const tools = getMCPTools({ tools: terreno.toolDefinitions, user: { id: cy.userId } });
    for (let i = 0; i < 6; i++) assert.ok("data" in (await run(tools, "todos_list")));
    // …while the app's own tools for the same caller count from zero.
    const counted = getMCPTools({ app: terreno, user: { id: cy.userId } });
    for (let i = 0; i < 4; i++) assert.ok("data" in (await run(counted, "todos_list")));
    assert.equal(
      ((await run(counted, "todos_list")).error as { code: string }).code,
      "rate_limited",
    );
  });
});
