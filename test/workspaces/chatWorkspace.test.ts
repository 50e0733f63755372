/**
 * Issue #35: the chat's tools act in the workspace the `/chat` request names with
 * `X-Workspace-Id`, as every HTTP surface reads it; the model sees that workspace's records only.
 * A stored conversation stays in the workspace it was started in: a later turn without the
 * header acts there, and one naming another workspace is a 409 that writes nothing.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import { chatPlugin } from "../../src/chat/index.js";
import { ChatMessage, ChatTelemetry, Conversation } from "../../src/chat/models.js";
import { modelRouter, TerrenoApp, WorkspaceRole } from "../../src/index.js";
import { type Step, scriptedModel, turnsEnded, userMessage, waitFor } from "../chat/helpers.js";
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

describe("a stored conversation stays in the workspace it was started in", () => {
  const listThenAnswer: Step[] = [{ tools: [["cases_list", {}]] }, { text: ["Listed."] }];
  const model = scriptedModel([...listThenAnswer, ...listThenAnswer, ...listThenAnswer]);
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
  app.register(chatPlugin({ app, model, persist: true }));
  const express = app.build();
  let carol: TestUser;
  const ids = { a: "", b: "" };

  before(async () => {
    carol = await signUp(express, "carol");
    const workspaces = app.workspaces;
    assert.ok(workspaces);
    ids.a = String((await workspaces.Workspace.create({ name: "Ward A" }))._id);
    ids.b = String((await workspaces.Workspace.create({ name: "Ward B" }))._id);
    await workspaces.Membership.create([
      { workspaceId: ids.a, userId: carol.userId, role: "member" },
      { workspaceId: ids.b, userId: carol.userId, role: "member" },
    ]);
    await Case.create([
      { title: "Ward A's patient", workspaceId: ids.a },
      { title: "Ward B's patient", workspaceId: ids.b },
    ]);
  });

  async function turn(
    body: Record<string, unknown>,
    workspaceId?: string,
  ): Promise<{ status: number; text: string; conversationId?: string; prompt: string }> {
    const calls = model.doStreamCalls.length;
    let req = request(express).post("/chat").set(bearer(carol));
    if (workspaceId) req = req.set("X-Workspace-Id", workspaceId);
    const res = await req
      .send(body)
      .buffer(true)
      .parse((response, callback) => {
        let data = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          data += chunk;
        });
        response.on("end", () => callback(null, data));
      });
    if (res.status === 200) await turnsEnded(10_000);
    const header = res.headers["x-conversation-id"];
    return {
      status: res.status,
      text: String(res.body),
      ...(typeof header === "string" ? { conversationId: header } : {}),
      prompt: JSON.stringify(model.doStreamCalls[calls + 1]?.prompt ?? null),
    };
  }

  test("started in A: stored with A; continued without the header in A; another header is 409", async () => {
    const first = await turn({ id: "ward-chat", messages: [userMessage("list cases")] }, ids.a);
    assert.equal(first.status, 200, first.text);
    assert.ok(first.conversationId);
    const stored = await Conversation.findById(first.conversationId).lean<{
      workspaceId?: string;
    }>();
    assert.equal(stored?.workspaceId, ids.a);
    assert.match(first.prompt, /Ward A's patient/);

    const messagesBefore = await ChatMessage.countDocuments({
      conversationId: first.conversationId,
    });
    for (const body of [
      { id: "ward-chat", messages: [userMessage("now list B's")] },
      { conversationId: first.conversationId, messages: [userMessage("now list B's")] },
    ]) {
      const elsewhere = await turn(body, ids.b);
      assert.equal(elsewhere.status, 409, elsewhere.text);
      const problem = JSON.parse(elsewhere.text) as { code: string; detail: string };
      assert.equal(problem.code, "conflict");
      assert.match(problem.detail, new RegExp(`started in workspace ${ids.a}`));
      assert.match(problem.detail, /X-Workspace-Id/);
    }
    // Refused before anything was written.
    assert.equal(
      await ChatMessage.countDocuments({ conversationId: first.conversationId }),
      messagesBefore,
    );

    // Two memberships and no header: a new conversation's tools would have to ask; this one
    // continues in A.
    const again = await turn({
      conversationId: first.conversationId,
      messages: [userMessage("list cases again")],
    });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.conversationId, first.conversationId);
    assert.match(again.prompt, /Ward A's patient/);
    assert.doesNotMatch(again.prompt, /Ward B's patient/);

    const sameHeader = await turn({ id: "ward-chat", messages: [userMessage("once more")] }, ids.a);
    assert.equal(sameHeader.status, 200, sameHeader.text);
    assert.match(sameHeader.prompt, /Ward A's patient/);
    await waitFor(async () => (await ChatTelemetry.countDocuments()) >= 3);
  });
});
