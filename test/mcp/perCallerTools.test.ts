/**
 * Per-caller tools on /mcp: a caller lists only the tools whose method-level permissions it
 * passes (sync or async checks, the view's `anonymous` flag), a hidden tool answers exactly as
 * an unknown tool, and each distinct catalog is built and serialized once.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Express } from "express";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { IsAny } from "../../src/core/permissions.js";
import { wireTool } from "../../src/mcp/mcpServerFactory.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { canSeeTool, createToolCatalog, toolsVisibleTo } from "../../src/tools/visibleTools.js";
import { signedUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { CLIENT_KINDS, connectClient, useListening } from "../helpers/mcpClients.js";
import { rpc, toolCallMessage } from "../helpers/mcpWire.js";
import { Food, Todo, User } from "../helpers/models.js";
import { callerOf, EVERYONE, perCallerApp } from "../helpers/perCallerApp.js";
import { foodOptions, JWT_SECRET, todoOptions } from "../helpers/restApp.js";
import { errorLogger } from "../helpers/serverLog.js";

useTestDatabase("mcp_per_caller");

const MODERN = "2026-07-28";

const ADMIN_ONLY = ["ledger_list", "ledger_read", "todos_delete"];

/** A 2026-07-28 request: the per-request `_meta` envelope and the MCP-* headers. */
function modernList(app: Express, token: string, id: string | number) {
  return rpc(
    app,
    {
      jsonrpc: "2.0",
      id,
      method: "tools/list",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientInfo": { name: "per-caller-test", version: "1.0.0" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    },
    token,
    { "mcp-protocol-version": MODERN, "mcp-method": "tools/list" },
  );
}

const names = (tools: Array<{ name: string }>) => tools.map((tool) => tool.name).sort();

async function makeAdmin(user: TestUser): Promise<void> {
  await User.updateOne({ _id: user.userId }, { $set: { admin: true } }).exec();
}

describe("per-caller tools on /mcp", () => {
  const terreno = perCallerApp({ ledger: true });
  const app = terreno.build();
  const server = useListening(app);
  const [alice, bob, root] = signedUp(app, "alice", "bob", "root");

  before(async () => {
    await makeAdmin(root);
  });

  test("over every real MCP client, a non-admin lists only its tools and an admin lists all", async () => {
    for (const kind of CLIENT_KINDS) {
      for (const [user, expected] of [
        [alice, EVERYONE],
        [root, [...EVERYONE, ...ADMIN_ONLY].sort()],
      ] as const) {
        const client = await connectClient(kind, server.url, user.token);
        try {
          assert.deepEqual(names(await client.listTools()), expected, `${kind}`);
        } finally {
          await client.close();
        }
      }
    }
  });

  test("a hidden tool answers exactly as an unknown tool (JSON-RPC -32602 unknown_tool)", async () => {
    const call = (name: string, token: string) =>
      rpc(
        app,
        { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name, arguments: {} } },
        token,
      );
    const unknown = await call("nope_list", alice.token);
    assert.equal(unknown.body.error.code, -32602);
    assert.equal(unknown.body.error.data.error.code, "unknown_tool");
    for (const hiddenName of ADMIN_ONLY) {
      const hidden = await call(hiddenName, alice.token);
      assert.equal(hidden.status, unknown.status);
      assert.deepEqual(
        JSON.parse(JSON.stringify(hidden.body).replaceAll(hiddenName, "NAME")),
        JSON.parse(JSON.stringify(unknown.body).replaceAll("nope_list", "NAME")),
        hiddenName,
      );
    }
    // The same names work for the admin (the async check included).
    const listed = await call("ledger_list", root.token);
    assert.equal(listed.body.result.isError, undefined, JSON.stringify(listed.body));

    // Through a real client too: the SDK client throws the same error for both.
    const client = await connectClient("v2-auto", server.url, alice.token);
    try {
      const hidden = await client.callTool("todos_delete", { id: alice.userId }).catch((e) => e);
      const missing = await client.callTool("nope_delete", { id: alice.userId }).catch((e) => e);
      assert.ok(hidden instanceof Error && missing instanceof Error);
      assert.equal(
        hidden.message.replace("todos_delete", "NAME"),
        missing.message.replace("nope_delete", "NAME"),
      );
    } finally {
      await client.close();
    }
  });

  test("hiding is per method; object-level checks still run on every call", async () => {
    const created = await rpc(
      app,
      toolCallMessage(1, "todos_create", { title: "alice's" }),
      alice.token,
    );
    const id = created.body.result.structuredContent.data.id;
    // Bob sees todos_read (IsOwner passes with no document) but may not read Alice's todo.
    const bobReads = await rpc(app, toolCallMessage(2, "todos_read", { id }), bob.token);
    assert.equal(bobReads.body.result.isError, true);
    assert.match(bobReads.body.result.content[0].text, /^not_found/);
    // The admin sees todos_delete and may use it.
    const deleted = await rpc(app, toolCallMessage(3, "todos_delete", { id }), root.token);
    assert.equal(deleted.body.result.structuredContent.data.deleted, true);
  });

  test("the spliced tools/list is exactly the visible tools, in both protocol eras", async () => {
    const expected = (visible: string[]) =>
      JSON.parse(
        JSON.stringify(
          terreno.toolDefinitions.filter((def) => visible.includes(def.name)).map(wireTool),
        ),
      );
    for (const [user, visible] of [
      [alice, EVERYONE],
      [root, [...EVERYONE, ...ADMIN_ONLY]],
    ] as const) {
      const legacy = await rpc(app, { jsonrpc: "2.0", id: 41, method: "tools/list" }, user.token);
      assert.equal(legacy.status, 200);
      assert.equal(Number(legacy.headers["content-length"]), Buffer.byteLength(legacy.text));
      assert.deepEqual(legacy.body, {
        jsonrpc: "2.0",
        id: 41,
        result: { tools: expected([...visible]) },
      });

      const modern = await modernList(app, user.token, 'list-"quoted"');
      assert.equal(modern.status, 200, modern.text.slice(0, 300));
      assert.equal(modern.body.id, 'list-"quoted"');
      assert.deepEqual(modern.body.result.tools, expected([...visible]));
      // The SDK's own fields are kept: per-caller lists are private to their caller.
      assert.equal(modern.body.result.resultType, "complete");
      assert.equal(modern.body.result.cacheScope, "private");
    }
    // Two callers who see the same tools get the same bytes.
    const a = await rpc(app, { jsonrpc: "2.0", id: 1, method: "tools/list" }, alice.token);
    const b = await rpc(app, { jsonrpc: "2.0", id: 1, method: "tools/list" }, bob.token);
    assert.equal(a.text, b.text);
  });

  test("a permission check that throws fails tools/list with -32603 and no internals", async () => {
    const { logger, errors: logged } = errorLogger();
    const broken = new TerrenoApp({
      userModel: User,
      auth: { jwt: { secret: JWT_SECRET } },
      logger,
    })
      .register(modelRouter(Food, foodOptions()))
      .register(
        "/boom",
        modelRouter(Food, {
          permissions: {
            list: [
              () => {
                throw new Error("boom: secret detail");
              },
            ],
          },
          mcp: { toolPrefix: "boom" },
        }),
      )
      .build();
    const listed = await rpc(broken, { jsonrpc: "2.0", id: 1, method: "tools/list" }, alice.token);
    assert.equal(listed.body.error.code, -32603);
    assert.doesNotMatch(listed.text, /secret detail/);
    const called = await rpc(broken, toolCallMessage(2, "boom_list", {}), alice.token);
    assert.equal(called.body.error.code, -32603);
    assert.doesNotMatch(called.text, /secret detail/);
    assert.ok(logged.length >= 2, "both failures were reported");
  });

  test("anonymous callers see only tools of models that serve them", async () => {
    const open = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
      .register(
        modelRouter(
          Food,
          foodOptions({ permissions: { list: [IsAny], read: [IsAny] }, allowAnonymous: true }),
        ),
      )
      .register(modelRouter(Todo, todoOptions()))
      .build();
    const anonymous = await rpc(open, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    assert.deepEqual(names(anonymous.body.result.tools), ["foods_list", "foods_read"]);
    const signedIn = await rpc(open, { jsonrpc: "2.0", id: 1, method: "tools/list" }, alice.token);
    assert.equal(signedIn.body.result.tools.length, 7);
  });

  test("the rule: sync while the checks are, a promise once one is async; one catalog per set", async () => {
    const [aliceCaller, bobCaller, rootCaller] = await Promise.all(
      [alice, bob, root].map(callerOf),
    );
    const all = terreno.toolDefinitions;
    const syncOnly = all.filter((def) => !def.name.startsWith("ledger_"));
    const visible = toolsVisibleTo(syncOnly, aliceCaller);
    assert.ok(Array.isArray(visible), "no async check: answered synchronously");
    assert.deepEqual(names(visible as Array<{ name: string }>), EVERYONE);
    assert.equal(toolsVisibleTo(syncOnly, rootCaller), syncOnly, "all visible: the same array");
    const pending = toolsVisibleTo(all, aliceCaller);
    assert.ok(pending instanceof Promise, "an async check: a promise");
    assert.deepEqual(names([...(await pending)]), EVERYONE);
    const ledgerList = all.find((def) => def.name === "ledger_list");
    assert.ok(ledgerList);
    assert.equal(canSeeTool(ledgerList, undefined), false, "no user, not anonymous: sync no");

    let built = 0;
    const catalog = createToolCatalog(all, (tools) => {
      built += 1;
      return { tools };
    });
    const forAlice = await catalog(aliceCaller);
    const forBob = await catalog(bobCaller);
    const forRoot = await catalog(rootCaller);
    assert.equal(forAlice, forBob, "the same visible set: the same object");
    assert.notEqual(forAlice, forRoot);
    assert.equal(await catalog(aliceCaller), forAlice);
    assert.equal(built, 2);
  });
});
