/**
 * Issue #35: the chat's tools act in the workspace the `/chat` request names with
 * `X-Workspace-Id`, as every HTTP surface reads it; the model sees that workspace's records only.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import { chatPlugin } from "../../src/chat/index.js";
import { ChatTelemetry } from "../../src/chat/models.js";
import { modelRouter, TerrenoApp, WorkspaceRole } from "../../src/index.js";
import { scriptedModel, userMessage, waitFor } from "../chat/helpers.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { User } from "../helpers/models.js";
import { JWT_SECRET } from "../helpers/restApp.js";

useTestDatabase("workspaces_chat");

const caseSchema = new Schema({
  title: { type: String, required: true },
  workspaceId: { type: Schema.Types.ObjectId, ref: "Workspace", required: true },
});
const Case = mongoose.models.Case ?? mongoose.model("Case", caseSchema);

describe("the chat in a workspace", () => {
  const model = scriptedModel([
    { tools: [["cases_list", {}]] },
    { text: ["Listed."] },
    { tools: [["cases_list", {}]] },
    { text: ["Listed."] },
  ]);
  const app = new TerrenoApp({
    userModel: User,
    auth: { jwt: { secret: JWT_SECRET } },
    workspaces: true,
  }).register(
    modelRouter(Case, {
      workspace: "workspaceId",
      permissions: { list: [WorkspaceRole("viewer")], read: [WorkspaceRole("viewer")] },
      mcp: { methods: ["list", "read"] },
    }),
  );
  app.register(chatPlugin({ app, model, persist: false }));
  const express = app.build();
  let alice: TestUser;
  const ids = { a: "", b: "" };

  before(async () => {
    alice = await signUp(express, "alice");
    const workspaces = app.workspaces;
    assert.ok(workspaces);
    ids.a = String((await workspaces.Workspace.create({ name: "Clinic A" }))._id);
    ids.b = String((await workspaces.Workspace.create({ name: "Clinic B" }))._id);
    await workspaces.Membership.create([
      { workspaceId: ids.a, userId: alice.userId, role: "member" },
      { workspaceId: ids.b, userId: alice.userId, role: "viewer" },
    ]);
    await Case.create([
      { title: "A's patient", workspaceId: ids.a },
      { title: "B's patient", workspaceId: ids.b },
    ]);
  });

  async function chatIn(workspaceId: string): Promise<string> {
    const calls = model.doStreamCalls.length;
    const res = await request(express)
      .post("/chat")
      .set(bearer(alice))
      .set("X-Workspace-Id", workspaceId)
      .send({ messages: [userMessage("list my cases")] })
      .buffer(true)
      .parse((response, callback) => {
        let data = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          data += chunk;
        });
        response.on("end", () => callback(null, data));
      });
    assert.equal(res.status, 200, String(res.body));
    // What the model read after the tool ran: the tool's output.
    return JSON.stringify(model.doStreamCalls[calls + 1]?.prompt);
  }

  test("the header chooses the workspace the chat's tools list", async () => {
    const inB = await chatIn(ids.b);
    assert.match(inB, /B's patient/);
    assert.doesNotMatch(inB, /A's patient/);
    const inA = await chatIn(ids.a);
    assert.match(inA, /A's patient/);
    assert.doesNotMatch(inA, /B's patient/);
    // Each turn stores its telemetry after its stream ends: wait, so the database outlives it.
    await waitFor(async () => (await ChatTelemetry.countDocuments()) >= 2);
  });
});
