/**
 * `$or`/`$and` through the MCP list tool (issue #12 item 5). The core rules are proved in
 * test/core and test/rest; this checks the tool surface: the same input format, the tools
 * view (internalNote is excluded there, so it answers like an unknown field inside branches
 * too) and the owner scope. The list tool's JSON Schema advertises `$or`/`$and` once
 * src/tools/listInputSchema.ts / src/core/listSchema.ts add them; until then these tests skip.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import {
  connectClient,
  type Listening,
  listen,
  type McpTestClient,
  type ToolCallOutcome,
  toolError,
} from "../helpers/mcpClients.js";
import { buildRestApp } from "../helpers/restApp.js";

useTestDatabase("mcp_filter_combinators");

const titles = (result: ToolCallOutcome) => {
  assert.equal(result.isError, undefined, JSON.stringify(result.content));
  const page = result.structuredContent as { data: Array<{ title: string }> };
  return page.data.map((t) => t.title).sort();
};

function refusedCode(result: ToolCallOutcome): string {
  assert.equal(result.isError, true, JSON.stringify(result.structuredContent));
  return toolError(result).code;
}

describe("MCP list tool: $or and $and", () => {
  let app: Express;
  let server: Listening;
  let alice: TestUser;
  let bob: TestUser;
  let asAlice: McpTestClient;
  let asBob: McpTestClient;
  let advertised = false;

  before(async () => {
    app = buildRestApp();
    server = await listen(app);
    alice = await signUp(app, "alice");
    bob = await signUp(app, "bob");
    const seed: Array<[TestUser, Record<string, unknown>]> = [
      [alice, { title: "alpha", completed: true, priority: 1, internalNote: "n1" }],
      [alice, { title: "beta", completed: false, priority: 3 }],
      [alice, { title: "gamma", completed: false, priority: 5 }],
      [bob, { title: "bob-a", completed: false, priority: 2 }],
    ];
    for (const [user, todo] of seed) {
      await request(app).post("/todos").set(bearer(user)).send(todo).expect(201);
    }
    asAlice = await connectClient("v2-auto", server.url, alice.token);
    asBob = await connectClient("v1", server.url, bob.token);
    const tool = (await asAlice.listTools()).find((t) => t.name === "todos_list");
    const filter = (tool?.inputSchema as { properties?: Record<string, { properties?: object }> })
      ?.properties?.filter;
    advertised = Boolean(filter?.properties && "$or" in filter.properties);
  });
  after(async () => {
    await asAlice?.close();
    await asBob?.close();
    await server?.close();
  });

  const pending = (t: { skip: (message: string) => void }) => {
    if (advertised) return false;
    t.skip("the todos_list schema does not advertise $or/$and yet (listInputSchema owner)");
    return true;
  };

  test("the depth-2 example returns the same rows as REST", async (t) => {
    if (pending(t)) return;
    const filter = {
      $or: [{ title: "alpha" }, { $and: [{ priority: { $gte: 3 } }, { completed: false }] }],
    };
    const viaTool = titles(await asAlice.callTool("todos_list", { filter }));
    assert.deepEqual(viaTool, ["alpha", "beta", "gamma"]);
    const viaRest = await request(app)
      .get(
        "/todos?$or[0][title]=alpha&$or[1][$and][0][priority][$gte]=3&$or[1][$and][1][completed]=false",
      )
      .set(bearer(alice));
    assert.deepEqual(viaRest.body.data.map((d: { title: string }) => d.title).sort(), viaTool);
  });

  test("user B's $or cannot reach user A's todos", async (t) => {
    if (pending(t)) return;
    for (const filter of [
      { $or: [{ ownerId: alice.userId }, { title: "alpha" }] },
      { $and: [{ $or: [{ ownerId: alice.userId }, { priority: { $gte: 1 } }] }] },
    ]) {
      const seen = titles(await asBob.callTool("todos_list", { filter }));
      assert.ok(
        seen.every((title) => title.startsWith("bob-")),
        seen.join(", "),
      );
    }
  });

  test("an excluded field inside a branch is refused like an unknown one", async (t) => {
    if (pending(t)) return;
    const call = (key: string) =>
      asAlice.callTool("todos_list", { filter: { $or: [{ title: "alpha" }, { [key]: "n1" }] } });
    const hidden = await call("internalNote");
    const unknown = await call("noSuchField");
    assert.equal(refusedCode(hidden), "validation_failed");
    assert.equal(refusedCode(unknown), "validation_failed");
    assert.equal(
      JSON.stringify(toolError(hidden)).replaceAll("internalNote", "X"),
      JSON.stringify(toolError(unknown)).replaceAll("noSuchField", "X"),
    );
    assert.ok(!JSON.stringify(hidden).includes('n1"'));
  });

  test("depth 3, 11 branches, empty lists and $where/$nor in a branch are refused", async (t) => {
    if (pending(t)) return;
    const branches = (n: number) => Array.from({ length: n }, (_, i) => ({ title: `t${i}` }));
    for (const filter of [
      { $or: [{ $and: [{ $or: [{ title: "a" }] }] }] },
      { $or: branches(11) },
      { $and: [] },
      { $or: [{}] },
      { $or: [{ title: "a" }, { $where: "1" }] },
      { $or: [{ $nor: [{ title: "a" }] }] },
      { $nor: [{ title: "a" }] },
    ]) {
      const result = await asAlice.callTool("todos_list", { filter });
      assert.equal(refusedCode(result), "validation_failed", JSON.stringify(filter));
    }
    assert.equal(
      titles(await asAlice.callTool("todos_list", { filter: { $or: branches(10) } })).length,
      0,
    );
  });
});
