/**
 * Issue #35 item 3, the catalogs: an `immutable` field is writable in create schemas and
 * `readOnly` in update schemas (tool inputSchema, OpenAPI), and a field under a read rule is
 * in no catalog built once for every caller (tools/list, describe_models, OpenAPI, the AI SDK
 * tools), while the callers the rule lets read it get it in their results.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { asSchema } from "ai";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import { getMCPTools } from "../../src/ai/getMCPTools.js";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { toUser } from "../../src/auth/userPlugin.js";
import { IsAdmin, IsAuthenticated } from "../../src/core/permissions.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { connectClient, type Listening, listen } from "../helpers/mcpClients.js";
import { User } from "../helpers/models.js";
import { JWT_SECRET } from "../helpers/restApp.js";

useTestDatabase("field_rules");

const SECRET_COST = 4242427;

const Part =
  mongoose.models.Part ??
  mongoose.model(
    "Part",
    new Schema({
      name: { type: String, required: true },
      shop: { type: String, immutable: true },
      costCents: Number,
      marginCents: Number,
    }),
  );

/** Populates a part, asking for its cost too. */
const Crate =
  mongoose.models.Crate ??
  mongoose.model(
    "Crate",
    new Schema({ label: String, part: { type: Schema.Types.ObjectId, ref: "Part" } }),
  );

type Props = Record<string, { readOnly?: boolean }>;

function buildApp(): TerrenoApp {
  return new TerrenoApp({
    userModel: User,
    auth: { jwt: { secret: JWT_SECRET } },
    mcp: { discovery: true },
  })
    .register(
      modelRouter(Crate, {
        permissions: { read: [IsAuthenticated] },
        populatePaths: [{ path: "part", fields: ["name", "costCents"] }],
        mcp: { methods: ["read"] },
      }),
    )
    .register(
      modelRouter(Part, {
        permissions: {
          list: [IsAuthenticated],
          read: [IsAuthenticated],
          create: [IsAuthenticated],
          update: [IsAuthenticated],
        },
        queryFields: ["name", "costCents"],
        fields: { costCents: { read: [IsAdmin] }, marginCents: { write: [IsAdmin] } },
        mcp: { methods: ["list", "read", "create", "update"] },
      }),
    );
}

describe("field rules and immutable fields in the catalogs", () => {
  let app: TerrenoApp;
  let server: Listening;
  let alice: TestUser;
  let admin: TestUser;
  let partId: string;

  before(async () => {
    app = buildApp();
    const express = app.build();
    server = await listen(express);
    alice = await signUp(express, "alice");
    admin = await signUp(express, "root");
    await User.updateOne({ _id: admin.userId }, { $set: { admin: true } }).exec();
    const part = await Part.create({ name: "bolt", shop: "north", costCents: SECRET_COST });
    partId = String(part._id);
  });
  after(() => server.close());

  test("tools/list: shop is readOnly on update only; costCents is in no schema", async () => {
    for (const user of [alice, admin]) {
      const client = await connectClient("v2-auto", server.url, user.token);
      try {
        const tools = await client.listTools();
        const schemaOf = (name: string) =>
          tools.find((t) => t.name === name)?.inputSchema as { properties: Props };
        const create = schemaOf("parts_create").properties;
        const update = schemaOf("parts_update").properties;
        assert.equal(create.shop.readOnly, undefined);
        assert.equal(update.shop.readOnly, true);
        assert.equal("marginCents" in create, false, "not writable on create");
        assert.equal(update.marginCents.readOnly, true);
        assert.equal(JSON.stringify(tools).includes("costCents"), false);
        const described = await client.callTool("describe_models", {});
        assert.equal(JSON.stringify(described).includes("costCents"), false);
      } finally {
        await client.close();
      }
    }
  });

  test("OpenAPI: the update body marks shop readOnly, and costCents appears nowhere", async () => {
    const res = await request(app.build()).get("/openapi.json");
    assert.equal(res.status, 200);
    assert.equal(res.text.includes("costCents"), false);
    const schemas = JSON.stringify(res.body);
    assert.match(schemas, /"shop":\{[^}]*"readOnly":true/);
  });

  test("results show costCents to the callers its read rule lets read it, on every surface", async () => {
    const aliceUser = toUser(await User.findById(alice.userId).orFail());
    const adminUser = toUser(await User.findById(admin.userId).orFail());
    const read = async (user: typeof aliceUser) => {
      const tools = getMCPTools({ app, user });
      const run = tools.parts_read?.execute;
      assert.ok(run);
      return (await run({ id: partId }, { toolCallId: "t", messages: [], context: {} })) as {
        data: Record<string, unknown>;
      };
    };
    for (const user of [aliceUser, adminUser]) {
      for (const tool of Object.values(getMCPTools({ app, user }))) {
        const schema = await asSchema(tool.inputSchema).jsonSchema;
        assert.equal(JSON.stringify(schema).includes("costCents"), false);
      }
    }
    assert.equal((await read(aliceUser)).data.costCents, undefined);
    assert.equal((await read(adminUser)).data.costCents, SECRET_COST);
    const rest = await request(app.build())
      .get(`/parts/${partId}`)
      .set("Authorization", `Bearer ${alice.token}`);
    assert.equal(rest.status, 200);
    assert.equal(rest.text.includes(String(SECRET_COST)), false);
  });

  test("a populate selection naming the field leaves it out, for every caller", async () => {
    const crate = await Crate.create({ label: "c", part: partId });
    for (const user of [alice, admin]) {
      const res = await request(app.build())
        .get(`/crates/${crate._id}`)
        .set("Authorization", `Bearer ${user.token}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.part.name, "bolt");
      assert.equal(res.text.includes(String(SECRET_COST)), false, res.text);
    }
  });

  test("a write rule: a caller it refuses may not change the field, one it allows may", async () => {
    const patch = (user: TestUser, body: Record<string, unknown>) =>
      request(app.build())
        .patch(`/parts/${partId}`)
        .set("Authorization", `Bearer ${user.token}`)
        .send(body);
    const refused = await patch(alice, { marginCents: 5 });
    assert.equal(refused.status, 400, refused.text);
    assert.ok(refused.body.fields?.marginCents, refused.text);
    assert.equal(
      (await Part.findById(partId).lean<{ marginCents?: number }>())?.marginCents,
      undefined,
    );
    const allowed = await patch(admin, { marginCents: 5 });
    assert.equal(allowed.status, 200, allowed.text);
    assert.equal(allowed.body.data.marginCents, 5);
    // Sent back unchanged, as read, it passes for anyone.
    const back = await patch(alice, { marginCents: 5, name: "bolt 2" });
    assert.equal(back.status, 200, back.text);
  });
});
