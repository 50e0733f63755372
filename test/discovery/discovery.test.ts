/**
 * Discovery tools (`mcp: {discovery: true}`) over a real MCP client and getMCPTools():
 * describe_models follows the per-caller visibility rule, never shows hidden fields, infers
 * relationships and matches queries fuzzily; whoami shows only the user fields the app chose
 * and its user model's view shows.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import mongoose, { Schema } from "mongoose";
import { getMCPTools } from "../../src/ai/getMCPTools.js";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { authUserPlugin } from "../../src/auth/userPlugin.js";
import { IsAdmin, IsAuthenticated } from "../../src/core/permissions.js";
import type { McpEndpointOptions } from "../../src/mcp/options.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { assertPortable } from "../../src/schema/portability.js";
import { matchScore } from "../../src/tools/discovery/fuzzyMatch.js";
import { toolsVisibleTo } from "../../src/tools/visibleTools.js";
import { signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import {
  connectClient,
  type Listening,
  listen,
  type McpTestClient,
} from "../helpers/mcpClients.js";
import { Todo, User } from "../helpers/models.js";
import { JWT_SECRET, restTerreno, todoOptions } from "../helpers/restApp.js";

useTestDatabase("discovery");

const mealSchema = new Schema({
  label: { type: String, required: true, enum: ["breakfast", "lunch", "dinner"] },
  foods: [{ type: Schema.Types.ObjectId, ref: "Food" }],
  // Hidden by the schema under names no secret-name list would catch: only the view hides them.
  kitchenNotes: { type: String, select: false },
  recipe: { steps: String, grandmasTwist: { type: String, select: false } },
});
const Meal = mongoose.models.Meal ?? mongoose.model("Meal", mealSchema);

interface ModelOut {
  name: string;
  tools: string[];
  fields: Array<{ name: string; type: string; required: boolean; ref?: string; enum?: unknown[] }>;
  relationships: Array<{ relationship: string; target: string; property: string }>;
}

function buildApp(discovery: McpEndpointOptions = {}) {
  return restTerreno({ mcp: { discovery: true, ...discovery } })
    .register(
      modelRouter(Meal, {
        permissions: { list: [IsAuthenticated], read: [IsAuthenticated] },
        mcp: { description: "What was eaten together." },
      }),
    )
    .register(
      modelRouter(User, {
        permissions: { list: [IsAdmin], read: [IsAdmin] },
        mcp: { excludeFields: ["email"] },
      }),
    );
}

describe("discovery tools over MCP", () => {
  let server: Listening;
  let alice: TestUser;
  let admin: TestUser;
  let aliceClient: McpTestClient;
  let adminClient: McpTestClient;

  before(async () => {
    const app = buildApp().build();
    server = await listen(app);
    alice = await signUp(app, "alice");
    admin = await signUp(app, "root");
    await User.updateOne({ _id: admin.userId }, { $set: { admin: true } }).exec();
    aliceClient = await connectClient("v1", server.url, alice.token);
    adminClient = await connectClient("v2-auto", server.url, admin.token);
  });
  after(async () => {
    await aliceClient.close();
    await adminClient.close();
    await server.close();
  });

  const models = async (client: McpTestClient, args: Record<string, unknown> = {}) => {
    const result = await client.callTool("describe_models", args);
    assert.equal(result.isError, undefined, JSON.stringify(result.content));
    return (result.structuredContent as { models: ModelOut[] }).models;
  };

  test("both tools are listed, read-only, with portable schemas", async () => {
    const tools = await aliceClient.listTools();
    for (const name of ["describe_models", "whoami"]) {
      const tool = tools.find((t) => t.name === name);
      assert.ok(tool, name);
      assert.equal((tool.annotations as { readOnlyHint?: boolean }).readOnlyHint, true);
      assertPortable(tool.inputSchema as never, { closedObjects: true });
      assertPortable(tool.outputSchema as never);
    }
  });

  test("anonymous callers see neither tool", async () => {
    const visible = await toolsVisibleTo(buildApp().toolDefinitions, undefined);
    assert.deepEqual(
      visible.map((t) => t.name),
      [],
    );
  });

  test("a caller sees only the models it has a tool for: the admin sees User, others don't", async () => {
    const mine = await models(aliceClient);
    assert.deepEqual(
      mine.map((m) => m.name),
      ["Food", "Meal", "Todo"],
    );
    const todo = mine.find((m) => m.name === "Todo");
    assert.deepEqual(todo?.tools, [
      "todos_create",
      "todos_delete",
      "todos_list",
      "todos_read",
      "todos_update",
    ]);
    const theirs = await models(adminClient);
    assert.deepEqual(
      theirs.map((m) => m.name),
      ["Food", "Meal", "Todo", "User"],
    );
    assert.deepEqual(theirs.find((m) => m.name === "User")?.tools, ["users_list", "users_read"]);
  });

  test("hidden fields never appear: excludeFields, select: false, the version key", async () => {
    const theirs = await models(adminClient);
    const fieldsOf = (name: string) =>
      theirs.find((m) => m.name === name)?.fields.map((f) => f.name) ?? [];
    assert.ok(!fieldsOf("Todo").includes("internalNote"));
    assert.ok(fieldsOf("Todo").includes("title"));
    assert.ok(fieldsOf("Todo").includes("reminder.channel"));
    assert.ok(!fieldsOf("User").includes("email"));
    assert.ok(!fieldsOf("User").includes("passwordHash"));
    assert.ok(!fieldsOf("Todo").includes("__v"));
    assert.doesNotMatch(JSON.stringify(theirs), /internalNote|passwordHash|"name":"email"/);
    assert.ok(fieldsOf("Meal").includes("recipe.steps"));
    assert.doesNotMatch(JSON.stringify(theirs), /kitchenNotes|grandmasTwist/);
  });

  test("fields carry type, required, enum and ref", async () => {
    const meal = (await models(aliceClient)).find((m) => m.name === "Meal");
    assert.deepEqual(
      meal?.fields.find((f) => f.name === "label"),
      {
        name: "label",
        type: "string",
        required: true,
        enum: ["breakfast", "lunch", "dinner"],
      },
    );
    assert.deepEqual(
      meal?.fields.find((f) => f.name === "foods"),
      {
        name: "foods",
        type: "objectId[]",
        required: false,
        ref: "Food",
      },
    );
  });

  test("a unique field says so; other fields carry no unique flag at all", async () => {
    const food = (await models(aliceClient)).find((m) => m.name === "Food");
    assert.deepEqual(
      food?.fields.find((f) => f.name === "name"),
      { name: "name", type: "string", required: true, unique: true },
    );
    assert.deepEqual(
      food?.fields.find((f) => f.name === "calories"),
      { name: "calories", type: "number", required: false },
    );
    assert.equal((food as { uniqueTogether?: unknown }).uniqueTogether, undefined);
  });

  test("relationships: BELONGS_TO from refs, HAS_MANY inferred, none to unseen models", async () => {
    const mine = await models(aliceClient);
    const rel = (name: string) => mine.find((m) => m.name === name)?.relationships;
    assert.deepEqual(rel("Meal"), [
      { relationship: "BELONGS_TO", target: "Food", property: "foods" },
    ]);
    assert.deepEqual(rel("Food"), [
      { relationship: "HAS_MANY", target: "Meal", property: "foods" },
    ]);
    // Todo's ownerId points at User, which this caller cannot see.
    assert.deepEqual(rel("Todo"), []);
    const theirs = await models(adminClient);
    const user = theirs.find((m) => m.name === "User");
    assert.deepEqual(
      user?.relationships.map((r) => `${r.relationship} ${r.target}.${r.property}`).sort(),
      ["HAS_MANY Food.ownerId", "HAS_MANY Todo.ownerId"],
    );
    assert.deepEqual(theirs.find((m) => m.name === "Todo")?.relationships, [
      { relationship: "BELONGS_TO", target: "User", property: "ownerId" },
    ]);
  });

  test("query matches fuzzily on model and field names, with limit", async () => {
    const names = async (query: string, limit?: number) =>
      (await models(aliceClient, { query, ...(limit ? { limit } : {}) })).map((m) => m.name);
    assert.equal((await names("todo"))[0], "Todo");
    assert.equal((await names("tod"))[0], "Todo");
    assert.equal((await names("todos"))[0], "Todo");
    assert.equal((await names("TODO"))[0], "Todo");
    assert.deepEqual(await names("calories"), ["Food"]);
    assert.deepEqual(await names("calroies"), ["Food"]);
    assert.deepEqual(await names("zzzz"), []);
    assert.equal((await names("food", 1)).length, 1);
    // A query never reveals a model the caller cannot see.
    assert.deepEqual(await names("user"), []);
    assert.equal(matchScore("tod", "Todo") > matchScore("tod", "updatedAt"), true);
  });

  test("bad arguments answer with the one error table", async () => {
    const result = await aliceClient.callTool("describe_models", { limit: 0, extra: true });
    assert.equal(result.isError, true);
    assert.match(result.content[0]?.text ?? "", /validation_failed/);
  });

  test("whoami: id, admin, how the caller signed in; no email by default", async () => {
    const result = await aliceClient.callTool("whoami", {});
    assert.deepEqual(result.structuredContent, {
      userId: alice.userId,
      admin: false,
      authMethod: "jwt",
      name: "alice",
    });
    const root = await adminClient.callTool("whoami", {});
    assert.equal((root.structuredContent as { admin: boolean }).admin, true);
  });
});

describe("describe_models names unique indexes", () => {
  const stockSchema = new Schema({
    storeId: { type: String, required: true },
    sku: { type: String, required: true },
    barcode: String,
    supplierCode: { type: String, select: false },
    aisle: String,
  });
  stockSchema.index({ storeId: 1, sku: 1 }, { unique: true });
  // A single-field unique index declared on the schema marks the field, as `unique: true` does.
  stockSchema.index({ barcode: 1 }, { unique: true });
  // A compound index over a hidden field is not named: its name would reveal the field.
  stockSchema.index({ aisle: 1, supplierCode: 1 }, { unique: true });
  // A compound index that is not unique says nothing.
  stockSchema.index({ storeId: 1, aisle: 1 });
  const Stock = mongoose.models.DiscoveryStock ?? mongoose.model("DiscoveryStock", stockSchema);

  test("compound unique indexes on the model, single-field ones on the field", async () => {
    const app = new TerrenoApp({
      userModel: User,
      auth: { jwt: { secret: JWT_SECRET } },
      mcp: { discovery: true },
    }).register(
      modelRouter(Stock, {
        permissions: { list: [IsAuthenticated], read: [IsAuthenticated] },
        mcp: { description: "What each store holds." },
      }),
    );
    app.build();
    const tools = getMCPTools({ app, user: { id: "0123456789abcdef01234567", admin: false } });
    const out = (await tools.describe_models.execute?.(
      {},
      { toolCallId: "1", messages: [], context: {} },
    )) as { models: Array<ModelOut & { uniqueTogether?: string[][] }> };
    const stock = out.models.find((m) => m.name === "DiscoveryStock");
    assert.deepEqual(stock?.uniqueTogether, [["storeId", "sku"]]);
    const field = (name: string) => stock?.fields.find((f) => f.name === name);
    assert.deepEqual(field("barcode"), {
      name: "barcode",
      type: "string",
      required: false,
      unique: true,
    });
    assert.deepEqual(field("storeId"), { name: "storeId", type: "string", required: true });
    assert.doesNotMatch(JSON.stringify(out), /supplierCode/);
  });
});

describe("discovery tools through getMCPTools", () => {
  let alice: TestUser;
  let app: TerrenoApp;

  before(async () => {
    app = buildApp({ discovery: { whoamiFields: ["name", "email", "createdAt"] } });
    alice = await signUp(app.build(), "carol");
  });

  test("whoami returns the fields the app chose, scopes of a personal token", async () => {
    const user = {
      id: alice.userId,
      name: "carol",
      email: alice.email,
      admin: false,
      authMethod: "pat",
      scopes: ["read"],
      passwordHash: "x",
    };
    const tools = getMCPTools({ app, user });
    assert.ok(tools.whoami && tools.describe_models);
    const out = (await tools.whoami.execute?.(
      {},
      { toolCallId: "1", messages: [], context: {} },
    )) as Record<string, unknown>;
    assert.equal(out.email, alice.email);
    assert.equal(out.authMethod, "pat");
    assert.deepEqual(out.scopes, ["read"]);
    assert.equal(out.passwordHash, undefined);
  });

  test("describe_models in process follows the same visibility", async () => {
    const user = { id: alice.userId, admin: false };
    const tools = getMCPTools({ app, user });
    const out = (await tools.describe_models.execute?.(
      { query: "user" },
      { toolCallId: "2", messages: [], context: {} },
    )) as {
      models: ModelOut[];
    };
    assert.deepEqual(out.models, []);
    const adminTools = getMCPTools({ app, user: { id: alice.userId, admin: true } });
    const all = (await adminTools.describe_models.execute?.(
      {},
      { toolCallId: "3", messages: [], context: {} },
    )) as {
      models: ModelOut[];
    };
    assert.ok(all.models.some((m) => m.name === "User"));
  });

  test("whoamiFields refuses the user model's hidden fields and reserved names at start-up", () => {
    assert.throws(
      () => buildApp({ discovery: { whoamiFields: ["passwordHash"] } }).toolDefinitions,
      /"passwordHash": the user model hides it/,
    );
    assert.throws(
      () => buildApp({ discovery: { whoamiFields: ["admin"] } }).toolDefinitions,
      /whoami returns it already/,
    );
    // The user model's view decides, not the field's name: a `select: false` field under an
    // innocent name is refused, and a visible one is served whatever it is called.
    const staffSchema = new Schema({
      name: String,
      badgePin: { type: String, select: false },
      hashtag: String,
    }).plugin(authUserPlugin);
    const Staff = mongoose.models.DiscoveryStaff ?? mongoose.model("DiscoveryStaff", staffSchema);
    const staffApp = (whoamiFields: string[]) =>
      new TerrenoApp({
        userModel: Staff,
        auth: { jwt: { secret: JWT_SECRET } },
        mcp: { discovery: { whoamiFields } },
      }).register(modelRouter(Todo, todoOptions())).toolDefinitions;
    assert.throws(() => staffApp(["badgePin"]), /"badgePin": the user model hides it/);
    const whoami = staffApp(["hashtag"]).find((tool) => tool.name === "whoami");
    assert.ok(whoami?.outputSchema?.properties && "hashtag" in whoami.outputSchema.properties);
  });

  test("off by default", () => {
    const plain = new TerrenoApp({
      userModel: User,
      auth: { jwt: { secret: JWT_SECRET } },
    }).register(modelRouter(Todo, todoOptions()));
    assert.ok(
      !plain.toolDefinitions.some((t) => t.name === "describe_models" || t.name === "whoami"),
    );
  });
});
