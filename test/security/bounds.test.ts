// Input bounds (issue 13, item 3): JSON nested deeper than MAX_DEPTH (32) levels is refused right
// after parsing, before any recursive walk — REST 400 `validation_failed`, MCP 400 JSON-RPC -32600
// `invalid_request` — never a 500 or a stack overflow, however deep (6,000 levels was a 500 with
// a RangeError from the MCP adapter's JSON.stringify). Every array a client writes holds at most
// `maxItems` items (the path's own option, else DEFAULT_MAX_ITEMS = 1,000), checked by the
// core's validator on every surface.

import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Express } from "express";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import { getMCPTools } from "../../src/ai/index.js";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { findTooDeep, MAX_DEPTH } from "../../src/core/inputSafety.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { DEFAULT_MAX_ITEMS } from "../../src/schema/index.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { Food, Todo, User } from "../helpers/models.js";
import { SIGNED_IN } from "../helpers/permissions.js";
import { foodOptions, JWT_SECRET, todoOptions } from "../helpers/restApp.js";
import { errorLogger } from "../helpers/serverLog.js";

useTestDatabase("security_bounds");

const ACCEPT = "application/json, text/event-stream";

/** A model that declares its own bound on one array (and leaves the other to the default). */
const Kit =
  mongoose.models.BoundsKit ??
  mongoose.model(
    "BoundsKit",
    new Schema({
      name: { type: String, required: true },
      parts: { type: [String], maxItems: 3 },
      notes: [String],
      extra: Schema.Types.Mixed,
    }),
  );

/** `[[[…]]]` `depth` levels deep, as raw JSON text (no recursion to build or print it). */
const deepArray = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

const tags = (count: number) => Array.from({ length: count }, (_, i) => `t${i}`);

describe("input bounds", () => {
  let app: Express;
  let terreno: TerrenoApp;
  let alice: TestUser;
  const { logger, errors: faults } = errorLogger();

  before(async () => {
    // The default jsonLimit (100kb): room for ~50,000 levels, and for 5,000 tags.
    terreno = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } }, logger })
      .register(modelRouter(Todo, todoOptions()))
      .register(modelRouter(Food, foodOptions()))
      .register(
        modelRouter(Kit, {
          permissions: SIGNED_IN,
          mcp: { methods: ["list", "read", "create", "update"] },
        }),
      );
    app = terreno.build();
    alice = await signUp(app, "alice");
  });

  const restRaw = (method: "post" | "patch", path: string, raw: string) =>
    request(app)[method](path).set(bearer(alice)).set("Content-Type", "application/json").send(raw);

  const mcpRaw = (raw: string, user: TestUser | undefined = alice) => {
    const req = request(app)
      .post("/mcp")
      .set("Accept", ACCEPT)
      .set("Content-Type", "application/json");
    if (user) req.set(bearer(user));
    return req.send(raw);
  };

  const toolCall = (name: string, argumentsJson: string) =>
    mcpRaw(
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"${name}","arguments":${argumentsJson}}}`,
    );

  describe("depth", () => {
    test(`findTooDeep: ${MAX_DEPTH} levels pass, ${MAX_DEPTH + 1} are named by path, 50,000 do not overflow`, () => {
      const nest = (depth: number) => {
        let value: unknown = "leaf";
        for (let i = 0; i < depth; i += 1) value = i % 2 ? [value] : { a: value };
        return value;
      };
      assert.equal(findTooDeep(nest(MAX_DEPTH)), undefined);
      assert.equal(findTooDeep({ a: [1, { b: null }], c: "x" }), undefined);
      const path = findTooDeep(nest(MAX_DEPTH + 1));
      assert.equal(path?.split(".").length, MAX_DEPTH + 1);
      assert.match(findTooDeep(JSON.parse(deepArray(50_000))) ?? "", /^0\.0\.0/);
      assert.match(findTooDeep(JSON.parse(deepObject(50_000))) ?? "", /^a\.a\.a/);
      // The first offending path, after siblings that were fine.
      assert.equal(findTooDeep({ ok: 1, deep: nest(40) })?.startsWith("deep."), true);
    });

    test("threat: 6,000 nested arrays in MCP tool arguments — 400 JSON-RPC -32600 invalid_request, no 5xx", async () => {
      const res = await toolCall("todos_create", `{"title":"deep","tags":${deepArray(6000)}}`);
      assert.equal(res.status, 400, res.text.slice(0, 300));
      assert.equal(res.body.error.code, -32600);
      assert.equal(res.body.id, 7, "the request's id is kept");
      const error = res.body.error.data.error;
      assert.equal(error.code, "invalid_request");
      assert.match(error.detail, /nested deeper than 32 levels/);
      const [path] = Object.keys(error.fields);
      assert.match(path, /^params\.arguments\.tags\.0\.0/);
      assert.doesNotMatch(res.text, /RangeError|stack|at /);
    });

    test("threat: the deepest body the size limit allows (≈50,000 levels), arrays or objects, on MCP — 400 -32600", async () => {
      for (const raw of [
        deepArray(49_000),
        deepObject(16_000),
        `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":${deepObject(9000)}}`,
      ]) {
        const res = await mcpRaw(raw);
        assert.equal(res.status, 400, `${raw.length} bytes: ${res.text.slice(0, 200)}`);
        assert.equal(res.body.error.code, -32600);
      }
      // Before authentication too: nothing walks the body first.
      const anonymous = await mcpRaw(deepArray(6000), undefined);
      assert.equal(anonymous.status, 400);
      assert.equal(anonymous.body.error.code, -32600);
    });

    test("threat: 6,000 nested arrays in a REST body — 400 validation_failed naming the path, on create and update", async () => {
      const created = await restRaw("post", "/todos", `{"title":"deep","tags":${deepArray(6000)}}`);
      assert.equal(created.status, 400, created.text.slice(0, 300));
      assert.equal(created.body.code, "validation_failed");
      assert.match(created.body.detail, /nested deeper than 32 levels/);
      assert.match(Object.keys(created.body.fields)[0], /^tags\.0\.0/);

      const todo = await request(app).post("/todos").set(bearer(alice)).send({ title: "kept" });
      assert.equal(todo.status, 201);
      const patched = await restRaw("patch", `/todos/${todo.body.data.id}`, deepObject(16_000));
      assert.equal(patched.status, 400, patched.text.slice(0, 300));
      assert.equal(patched.body.code, "validation_failed");
      assert.match(Object.keys(patched.body.fields)[0], /^a\.a\.a/);
      // Any route, even one that never reads a body, and the auth routes.
      for (const path of ["/auth/login", "/nowhere"]) {
        const res = await restRaw("post", path, deepArray(40_000));
        assert.equal(res.status, 400, `${path}: ${res.text.slice(0, 200)}`);
        assert.equal(res.body.code, "validation_failed");
      }
    });

    test("a Mixed value nested just within the bound is stored; one level deeper is refused", async () => {
      // The body's root is level 0: `extra` is level 1, so it may hold 31 more levels.
      const within = `{"name":"within","extra":${deepObject(MAX_DEPTH - 1)}}`;
      const ok = await restRaw("post", "/bounds-kits", within);
      assert.equal(ok.status, 201, ok.text.slice(0, 300));
      const over = await restRaw(
        "post",
        "/bounds-kits",
        `{"name":"over","extra":${deepObject(MAX_DEPTH)}}`,
      );
      assert.equal(over.status, 400);
      assert.equal(Object.keys(over.body.fields)[0].split(".").length, MAX_DEPTH + 1);
    });

    test("threat: deep tool arguments through getMCPTools (AI SDK) — an {error} result, not a throw", async () => {
      const tools = getMCPTools({ app: terreno, user: { id: alice.userId } });
      const args = { title: "deep", tags: JSON.parse(deepArray(6000)) };
      const result = (await tools.todos_create.execute?.(args, {
        toolCallId: "deep",
        messages: [],
        context: {},
      })) as { error?: { code: string } };
      assert.equal(result.error?.code, "validation_failed");
    });

    test("no server fault was logged for any of it", () => {
      assert.deepEqual(faults, []);
    });
  });

  describe("array items", () => {
    test(`write schemas bound every array: ${DEFAULT_MAX_ITEMS} by default, the path's maxItems when set`, async () => {
      assert.equal(DEFAULT_MAX_ITEMS, 1000);
      const res = await mcpRaw('{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
      assert.equal(res.status, 200);
      const byName = new Map<string, { inputSchema: { properties: Record<string, unknown> } }>(
        res.body.result.tools.map((tool: { name: string }) => [tool.name, tool]),
      );
      const todo = byName.get("todos_create")?.inputSchema.properties as Record<
        string,
        { maxItems?: number }
      >;
      assert.equal(todo.tags.maxItems, 1000);
      assert.equal(todo.checklist.maxItems, 1000);
      const update = byName.get("todos_update")?.inputSchema.properties as Record<
        string,
        { anyOf?: Array<{ maxItems?: number }>; maxItems?: number }
      >;
      const tagsOnUpdate = update.tags.anyOf?.[0] ?? update.tags;
      assert.equal(tagsOnUpdate.maxItems, 1000);
      const kit = byName.get("bounds_kits_create")?.inputSchema.properties as Record<
        string,
        { maxItems?: number; description?: string; anyOf?: Array<{ maxItems?: number }> }
      >;
      assert.equal(kit.parts.maxItems, 3);
      assert.match(kit.parts.description ?? "", /At most 3 items/);
      assert.equal(kit.notes.maxItems, 1000);
      const list = kit.extra.anyOf?.find((branch) => "items" in branch);
      assert.equal(list?.maxItems, 1000, "a Mixed value's list form is bounded too");
    });

    test("threat: 5,000 tags on REST — 400 naming tags, on create and update; nothing written", async () => {
      const before = await Todo.countDocuments();
      const created = await request(app)
        .post("/todos")
        .set(bearer(alice))
        .send({ title: "many tags", tags: tags(5000) });
      assert.equal(created.status, 400, created.text.slice(0, 300));
      assert.equal(created.body.code, "validation_failed");
      assert.deepEqual(created.body.fields, { tags: "must have at most 1000 items" });
      assert.equal(await Todo.countDocuments(), before);

      const todo = await request(app).post("/todos").set(bearer(alice)).send({ title: "few" });
      const patched = await request(app)
        .patch(`/todos/${todo.body.data.id}`)
        .set(bearer(alice))
        .send({ tags: tags(5000) });
      assert.equal(patched.status, 400);
      assert.deepEqual(patched.body.fields, { tags: "must have at most 1000 items" });
    });

    test("threat: 5,000 tags on MCP and through getMCPTools — validation_failed naming tags", async () => {
      const res = await toolCall(
        "todos_create",
        JSON.stringify({ title: "many", tags: tags(5000) }),
      );
      assert.equal(res.status, 200);
      assert.equal(res.body.result.isError, true);
      const text: string = res.body.result.content[0].text;
      assert.match(text, /^validation_failed: /);
      const body = JSON.parse(text.slice(text.indexOf("\n") + 1));
      assert.deepEqual(body.error.fields, { tags: "must have at most 1000 items" });

      const tools = getMCPTools({ app: terreno, user: { id: alice.userId } });
      const result = (await tools.todos_create.execute?.(
        { title: "many", tags: tags(5000) },
        { toolCallId: "tags", messages: [], context: {} },
      )) as { error?: { code: string; fields?: Record<string, string> } };
      assert.equal(result.error?.code, "validation_failed");
      assert.deepEqual(result.error?.fields, { tags: "must have at most 1000 items" });
    });

    test("1,000 tags are accepted on REST and on MCP", async () => {
      const created = await request(app)
        .post("/todos")
        .set(bearer(alice))
        .send({ title: "a thousand", tags: tags(1000) });
      assert.equal(created.status, 201, created.text.slice(0, 300));
      assert.equal(created.body.data.tags.length, 1000);
      const res = await toolCall(
        "todos_create",
        JSON.stringify({ title: "mcp", tags: tags(1000) }),
      );
      assert.equal(res.status, 200);
      assert.equal(res.body.result.isError, undefined, res.text.slice(0, 300));
      assert.equal(res.body.result.structuredContent.data.tags.length, 1000);
    });

    test("a path's own maxItems replaces the default (3 parts: ok; 4: refused)", async () => {
      const ok = await request(app)
        .post("/bounds-kits")
        .set(bearer(alice))
        .send({ name: "three", parts: ["a", "b", "c"] });
      assert.equal(ok.status, 201);
      const over = await request(app)
        .post("/bounds-kits")
        .set(bearer(alice))
        .send({ name: "four", parts: ["a", "b", "c", "d"] });
      assert.equal(over.status, 400);
      assert.deepEqual(over.body.fields, { parts: "must have at most 3 items" });
    });
  });
});
