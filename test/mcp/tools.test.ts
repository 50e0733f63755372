import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { IsAny, IsAuthenticated } from "../../src/core/permissions.js";
import { defaultToolPrefix } from "../../src/core/toolPrefix.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { assertPortable } from "../../src/schema/portability.js";
import type { JsonSchema } from "../../src/schema/types.js";
import { signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { connectClient, type Listening, listen } from "../helpers/mcpClients.js";
import { Food, Todo, User } from "../helpers/models.js";
import { buildRestApp, foodOptions, JWT_SECRET, todoOptions } from "../helpers/restApp.js";

useTestDatabase("mcp_tools");

type Tool = Record<string, unknown> & {
  name: string;
  inputSchema: { properties?: Record<string, Record<string, unknown>>; required?: string[] };
};

describe("MCP tool definitions", () => {
  let server: Listening;
  let alice: TestUser;
  let tools: Tool[];

  before(async () => {
    const app = buildRestApp();
    server = await listen(app);
    alice = await signUp(app, "alice");
    const client = await connectClient("v1", server.url, alice.token);
    tools = (await client.listTools()) as Tool[];
    await client.close();
  });
  after(() => server.close());

  const tool = (name: string) => {
    const found = tools.find((t) => t.name === name);
    assert.ok(found, name);
    return found;
  };

  test("names are portable and listed in a deterministic order", () => {
    const names = tools.map((t) => t.name);
    assert.deepEqual(names, [...names].sort());
    for (const name of names) {
      assert.match(name, /^[a-z][a-z0-9_]*$/);
      assert.ok(name.length <= 48);
    }
    assert.equal(defaultToolPrefix("FoodItem"), "food_items");
    assert.equal(defaultToolPrefix("Person"), "people");
  });

  test("every input and output schema passes the portability check", () => {
    for (const t of tools) {
      assertPortable(t.inputSchema, { closedObjects: true });
      assertPortable(t.outputSchema);
      assert.equal((t.inputSchema as { type?: string }).type, "object");
      assert.equal((t.outputSchema as { type?: string }).type, "object");
      assert.doesNotMatch(JSON.stringify(t), /"\$ref"|"\$defs"/);
    }
  });

  test("annotations follow the read-only / destructive / idempotent table, with titles", () => {
    const expected: Record<string, Record<string, boolean>> = {
      todos_list: { readOnlyHint: true, openWorldHint: false },
      todos_read: { readOnlyHint: true, openWorldHint: false },
      todos_create: { destructiveHint: false, openWorldHint: false },
      todos_update: { idempotentHint: true, openWorldHint: false },
      todos_delete: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
    };
    for (const [name, hints] of Object.entries(expected)) {
      const t = tool(name);
      const { title, ...rest } = t.annotations as Record<string, unknown>;
      assert.deepEqual(rest, hints, name);
      assert.equal(typeof title, "string");
      assert.equal(typeof t.title, "string");
    }
  });

  test("write schemas keep types and drop system, hidden and read-only fields", () => {
    const create = tool("todos_create").inputSchema;
    const props = create.properties ?? {};
    assert.deepEqual(Object.keys(props).sort(), [
      "checklist",
      "completed",
      "dueDate",
      "priority",
      "reminder",
      "tags",
      "title",
    ]);
    assert.deepEqual(create.required, ["title"]);
    assert.equal(props.title.type, "string");
    assert.equal(props.title.maxLength, 200);
    assert.equal(props.priority.minimum, 1);
    assert.equal(props.priority.maximum, 5);
    assert.equal(props.completed.default, false);
    // A date-time, or a date alone (00:00 UTC).
    assert.deepEqual(props.dueDate.anyOf, [
      { type: "string", format: "date-time" },
      { type: "string", format: "date" },
    ]);
    assert.deepEqual(props.tags.items, { type: "string" });
    const update = tool("todos_update").inputSchema;
    assert.deepEqual(update.required, ["id"]);
    assert.ok(!("internalNote" in (update.properties ?? {})));
    // Read-only: listed only as what a read sends back, ignored (`readOnly`), never as writable.
    assert.equal(update.properties?.ownerId?.readOnly, true);
    assert.equal(update.properties?.createdAt?.readOnly, true);
    // A merge patch: null clears an optional field, never a required one; subdocuments take
    // the `id` they are read with; an array is replaced whole, so its items keep `required`.
    const patch = update.properties as Record<string, JsonSchema>;
    assert.equal(patch.title.type, "string");
    assert.deepEqual(patch.priority.anyOf?.at(-1), { type: "null" });
    const item = patch.checklist.anyOf?.[0].items;
    assert.deepEqual(Object.keys(item?.properties ?? {}), ["text", "done", "id"]);
    assert.deepEqual(item?.required, ["text"]);
  });

  test("the list schema offers visible filters with per-type operators, sort, page, limit and populate", () => {
    const list = tool("todos_list").inputSchema.properties ?? {};
    const filter = list.filter as {
      properties: Record<string, unknown>;
      additionalProperties: boolean;
      description: string;
    };
    assert.equal(filter.additionalProperties, false);
    assert.deepEqual(Object.keys(filter.properties).sort(), [
      "$and",
      "$or",
      "completed",
      "dueDate",
      "ownerId",
      "priority",
      "tags",
      "title",
    ]);
    assert.ok(!("internalNote" in filter.properties), "hidden fields are not filterable");
    // Operators are said once, in the filter's description, per field that takes them.
    assert.deepEqual(filter.properties.priority, {
      anyOf: [{ type: "number" }, { type: "object" }],
    });
    assert.match(filter.description, /also \$gt, \$gte, \$lt, \$lte on [^;]*\bpriority\b/);
    assert.doesNotMatch(filter.description, /\$gte[^;]*\btitle\b/);
    assert.match(filter.description, /\$or\/\$and: 1-10 non-empty filters like this one/);
    assert.ok(list.sort && list.page && list.limit);
    assert.match(String(list.sort.description), /: title, completed, priority, dueDate/);
    assert.doesNotMatch(String(list.sort.description), /internalNote|tags|checklist/);
    assert.deepEqual((list.populate.items as { enum: string[] }).enum, ["ownerId"]);
    assert.equal(list.limit.description, "From 1, default and cap 5.");
    assert.equal(tool("todos_list").description, "List Todo documents you may see.");
  });

  test("models default to list and read; an empty REST permission never becomes a tool", () => {
    assert.deepEqual(
      tools.filter((t) => t.name.startsWith("foods_")).map((t) => t.name),
      ["foods_list", "foods_read"],
    );
  });

  test("outputs describe {data, page, limit, total, more} for lists and {data} otherwise", () => {
    const listOut = tool("todos_list").outputSchema as { required: string[] };
    assert.deepEqual(listOut.required, ["data", "page", "limit", "total", "more"]);
    const readOut = tool("todos_read").outputSchema as {
      properties: { data: { properties: Record<string, unknown> } };
    };
    assert.ok("title" in readOut.properties.data.properties);
    assert.ok(!("internalNote" in readOut.properties.data.properties));
  });
});

describe("MCP registration", () => {
  test("duplicate tool names fail at start-up with a clear error", () => {
    const app = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
      .register(modelRouter(Todo, todoOptions()))
      .register("/others", modelRouter(Food, foodOptions({ mcp: { toolPrefix: "todos" } })));
    assert.throws(() => app.build(), /duplicate MCP tool name "todos_list".*toolPrefix/);
  });

  test("two apps in one process do not leak tools into each other; prefix and description options apply", async () => {
    const a = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
      .register(modelRouter(Todo, todoOptions()))
      .build();
    const b = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
      .register(
        modelRouter(
          Food,
          foodOptions({ mcp: { toolPrefix: "meals", description: "Meals people ate." } }),
        ),
      )
      .build();
    const serverA = await listen(a);
    const serverB = await listen(b);
    try {
      const user = await signUp(a, "leak");
      const clientA = await connectClient("v2-auto", serverA.url, user.token);
      const clientB = await connectClient("v2-auto", serverB.url, user.token);
      const namesA = (await clientA.listTools()).map((t) => t.name);
      const toolsB = await clientB.listTools();
      assert.ok(namesA.every((n) => n.startsWith("todos_")));
      assert.deepEqual(
        toolsB.map((t) => t.name),
        ["meals_list", "meals_read"],
      );
      assert.match(String(toolsB[0].description), /Meals people ate\./);
      await clientA.close();
      await clientB.close();
    } finally {
      await serverA.close();
      await serverB.close();
    }
  });

  test("the endpoint is absent without opted-in models, can be disabled, and can move", async () => {
    const plain = new TerrenoApp()
      .register(modelRouter(Food, { permissions: { list: [IsAny] } }))
      .build();
    assert.equal((await request(plain).post("/mcp").send({})).status, 404);
    const disabled = new TerrenoApp({ mcp: { enabled: false } })
      .register(modelRouter(Food, { permissions: { list: [IsAuthenticated] }, mcp: {} }))
      .build();
    assert.equal((await request(disabled).post("/mcp").send({})).status, 404);
    const moved = new TerrenoApp({ mcp: { path: "/ai/mcp" } })
      .register(modelRouter(Food, { permissions: { list: [IsAuthenticated] }, mcp: {} }))
      .build();
    assert.equal((await request(moved).post("/ai/mcp").send({})).status, 401);
  });

  test("a tool name that is not portable is refused at start-up", () => {
    const app = new TerrenoApp().register(
      modelRouter(Food, { permissions: { list: [IsAny] }, mcp: { toolPrefix: "Bad-Prefix" } }),
    );
    assert.throws(() => app.build(), /not portable/);
    const long = new TerrenoApp().register(
      modelRouter(Food, { permissions: { list: [IsAny] }, mcp: { toolPrefix: "x".repeat(45) } }),
    );
    assert.throws(() => long.build(), /at most 48/);
  });
});
