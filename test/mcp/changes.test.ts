// Issue #36 item 3 through MCP: a tool's update is a change record like a REST write
// (surface `mcp`, the tool as its operation, the values), and undo over REST reverses it.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Express } from "express";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { connectClient, type Listening, listen } from "../helpers/mcpClients.js";
import { User } from "../helpers/models.js";
import { OWNED } from "../helpers/permissions.js";
import { JWT_SECRET } from "../helpers/restApp.js";

const memoSchema = new Schema({
  title: { type: String, required: true },
  ownerId: { type: Schema.Types.ObjectId, ref: "User", required: true },
});
const Memo = mongoose.models.ChangeMemo ?? mongoose.model("ChangeMemo", memoSchema);

useTestDatabase("mcp_changes");

describe("MCP writes as change records", () => {
  let app: Express;
  let server: Listening;
  let alice: TestUser;

  before(async () => {
    app = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } }, changes: true })
      .register(modelRouter(Memo, { ...OWNED, mcp: { methods: ["read", "update"] } }))
      .build();
    server = await listen(app);
    alice = await signUp(app, "alice");
  });
  after(() => server.close());

  test("a tool update is recorded with surface mcp and its values, and can be undone", async () => {
    const created = await request(app)
      .post("/change-memos")
      .set(bearer(alice))
      .send({ title: "by hand" })
      .expect(201);
    const id = created.body.data.id;
    const client = await connectClient("v1", server.url, alice.token);
    try {
      const update = (await client.listTools()).find((t) => t.name.endsWith("_update"));
      assert.ok(update, "an update tool");
      const result = await client.callTool(update.name, { id, title: "by agent" });
      assert.ok(!result.isError, JSON.stringify(result.content));
    } finally {
      await client.close();
    }
    const list = await request(app).get(`/changes?record=${id}`).set(bearer(alice)).expect(200);
    const [latest] = list.body.data;
    assert.equal(latest.surface, "mcp");
    assert.match(latest.operation, /_update$/);
    assert.deepEqual(latest.changes, [{ path: "title", before: "by hand", after: "by agent" }]);
    await request(app).post(`/changes/${latest.id}/undo`).set(bearer(alice)).expect(200);
    const read = await request(app).get(`/change-memos/${id}`).set(bearer(alice)).expect(200);
    assert.equal(read.body.data.title, "by hand");
  });
});
