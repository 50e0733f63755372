/**
 * A compound unique index (storeId, sku) refused over REST and MCP: the 409 names the pair as a
 * pair ("the same storeId and sku"), never as either field alone ("storeId or sku"), since
 * each field on its own may repeat. A field's own unique index still reads as one field.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { IsAuthenticated } from "../../src/core/permissions.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { bearer, signedUp } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import {
  connectClient,
  type McpTestClient,
  toolError,
  useListening,
} from "../helpers/mcpClients.js";
import { User } from "../helpers/models.js";
import { JWT_SECRET } from "../helpers/restApp.js";

useTestDatabase("compound_conflict");

const shelfSchema = new Schema({
  storeId: { type: String, required: true },
  sku: { type: String, required: true },
});
shelfSchema.index({ storeId: 1, sku: 1 }, { unique: true });
const ShelfItem = mongoose.models.ShelfItem ?? mongoose.model("ShelfItem", shelfSchema);

const all = [IsAuthenticated];

describe("a compound unique index refused", () => {
  const app = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
    .register(
      modelRouter(ShelfItem, {
        permissions: { list: all, read: all, create: all, update: all },
        mcp: { methods: ["create", "update"] },
      }),
    )
    .build();
  let client: McpTestClient;
  // Registered before the server's: the client closes first.
  after(() => client.close());
  const [alice] = signedUp(app, "alice");
  const server = useListening(app);

  before(async () => {
    await ShelfItem.init();
    client = await connectClient("v2-auto", server.url, alice.token);
  });

  test("REST: the 409 names the pair; either field alone may repeat", async () => {
    const post = (body: object) => request(app).post("/shelf-items").set(bearer(alice)).send(body);
    assert.equal((await post({ storeId: "s1", sku: "apple" })).status, 201);
    assert.equal((await post({ storeId: "s1", sku: "pear" })).status, 201, "same store");
    assert.equal((await post({ storeId: "s2", sku: "apple" })).status, 201, "same sku");
    const res = await post({ storeId: "s1", sku: "apple" });
    assert.equal(res.status, 409);
    assert.equal(res.body.code, "conflict");
    assert.equal(res.body.detail, "A ShelfItem with the same storeId and sku already exists.");
    assert.deepEqual(res.body.fields, {
      storeId: "must be unique together with sku",
      sku: "must be unique together with storeId",
    });
    assert.doesNotMatch(JSON.stringify(res.body), / or |apple/);
  });

  test("MCP: the same words through the one error table", async () => {
    const result = await client.callTool("shelf_items_create", { storeId: "s9", sku: "fig" });
    assert.equal(result.isError, undefined, JSON.stringify(result.content));
    const again = await client.callTool("shelf_items_create", { storeId: "s9", sku: "fig" });
    const error = toolError(again);
    assert.equal(error.code, "conflict");
    assert.equal(error.detail, "A ShelfItem with the same storeId and sku already exists.");
  });
});
