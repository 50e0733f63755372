/**
 * The words a model reads name a model with the right article: "Create an Order", "Takes the
 * id of an Order", "ObjectId of an Order document", "an Order with the same…", and still
 * "a User", "a Todo". Read through the app's own tool catalog and its OpenAPI document.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { IsAuthenticated } from "../../src/core/permissions.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { withArticle } from "../../src/schema/article.js";
import { User } from "../helpers/models.js";
import { JWT_SECRET } from "../helpers/restApp.js";

const orderSchema = new Schema({
  label: { type: String, required: true },
  buyerId: { type: Schema.Types.ObjectId, ref: "User" },
  itemId: { type: Schema.Types.ObjectId, ref: "ArticleItem" },
});
const Order = mongoose.models.Order ?? mongoose.model("Order", orderSchema);
const ArticleItem =
  mongoose.models.ArticleItem ?? mongoose.model("ArticleItem", new Schema({ name: String }));

const all = [IsAuthenticated];
const permissions = { list: all, read: all, create: all, update: all, delete: all };
const mcp = { methods: ["list", "read", "create", "update", "delete"] as const };

function buildApp() {
  return new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
    .register(
      modelRouter(Order, {
        permissions,
        mcp: { methods: [...mcp.methods] },
        actions: {
          ship: {
            scope: "instance",
            description: "Ships it.",
            permissions: all,
            handler: async () => ({ shipped: true }),
          },
        },
      }),
    )
    .register(modelRouter(ArticleItem, { permissions, mcp: { methods: [...mcp.methods] } }))
    .register(modelRouter(User, { permissions: { read: all }, mcp: {} }));
}

describe("articles before model names", () => {
  test("by sound: acronyms letter by letter, a 'you' sound, a silent h", () => {
    const cases = {
      Todo: "a Todo",
      Order: "an Order",
      Item: "an Item",
      User: "a User",
      Unit: "a Unit",
      Update: "an Update",
      Euro: "a Euro",
      OneTimeCode: "a OneTimeCode",
      Hour: "an Hour",
      APIKey: "an APIKey",
      SMS: "an SMS",
      URLAlias: "a URLAlias",
      objectId: "an objectId",
      map: "a map",
    };
    for (const [name, expected] of Object.entries(cases)) assert.equal(withArticle(name), expected);
  });

  test("tool titles and descriptions", () => {
    const tools = buildApp().toolDefinitions;
    const tool = (name: string) => {
      const found = tools.find((candidate) => candidate.name === name);
      assert.ok(found, name);
      return found;
    };
    assert.equal(tool("orders_create").title, "Create an Order");
    assert.equal(tool("orders_read").title, "Read an Order");
    assert.equal(tool("orders_update").title, "Update an Order");
    assert.equal(tool("orders_delete").title, "Delete an Order");
    assert.match(tool("orders_create").description, /^Create an Order\./);
    assert.match(tool("orders_update").description, /^Update an Order by id\./);
    assert.match(tool("orders_delete").description, /^Delete an Order by id\./);
    assert.match(tool("orders_ship").description, /Takes the id of an Order you can read\./);
    assert.equal(tool("article_items_read").title, "Read an ArticleItem");
    assert.equal(tool("users_read").title, "Read a User");
    const output = JSON.stringify(tool("orders_read").outputSchema);
    assert.match(output, /ObjectId of a User document/);
    assert.match(output, /ObjectId of an ArticleItem document/);
    const everything = JSON.stringify(
      tools.map(({ title, description, outputSchema }) => [title, description, outputSchema]),
    );
    assert.doesNotMatch(everything, /\ba [AEIO]/);
  });

  test("OpenAPI summaries", async () => {
    const res = await request(buildApp().build()).get("/openapi.json");
    assert.equal(res.status, 200);
    const paths = res.body.paths as Record<string, Record<string, { summary?: string }>>;
    const summaries = Object.values(paths).flatMap((ops) =>
      Object.values(ops).map((op) => op.summary ?? ""),
    );
    for (const expected of [
      "Create an Order",
      "Read an Order",
      "Update an Order",
      "Delete an Order",
    ])
      assert.ok(summaries.includes(expected), `${expected} in ${JSON.stringify(summaries)}`);
    assert.ok(summaries.includes("Read a User"));
    assert.doesNotMatch(JSON.stringify(summaries), /\ba [AEIO]/);
  });
});
