/**
 * A chat page's MCP App calls (issue 25.5), over real HTTP: `GET /chat/apps` lists the caller's
 * views; a view's read runs at once; a view's write is held as an approval the server recorded
 * and writes nothing until the person answers; only that user, in that conversation, with that
 * approval id may answer, once; a denial writes nothing.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { Conversation, chatPlugin } from "../../src/chat/index.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { Todo, User } from "../helpers/models.js";
import { JWT_SECRET, todoOptions } from "../helpers/restApp.js";
import { scriptedModel } from "./helpers.js";

useTestDatabase("chat_app_calls");

function buildApp(apps: boolean): Express {
  const app = new TerrenoApp({
    userModel: User,
    auth: { jwt: { secret: JWT_SECRET } },
    mcp: { apps },
  }).register(modelRouter(Todo, todoOptions()));
  app.register(chatPlugin({ model: scriptedModel() }));
  return app.build();
}

describe("MCP App calls from the chat page", () => {
  let app: Express;
  let alice: TestUser;
  let bob: TestUser;
  let conversationId: string;
  let todoId: string;

  before(async () => {
    app = buildApp(true);
    alice = await signUp(app, "alice");
    bob = await signUp(app, "bob");
    const todo = await request(app).post("/todos").set(bearer(alice)).send({ title: "buy milk" });
    todoId = todo.body.data.id;
    const conversation = await Conversation.create({ ownerId: alice.userId, title: "apps" });
    conversationId = String(conversation._id);
  });

  const completed = async () =>
    (await request(app).get(`/todos/${todoId}`).set(bearer(alice))).body.data.completed;

  test("GET /chat/apps lists the views; GET /chat/apps/:tool serves one", async () => {
    const list = await request(app).get("/chat/apps").set(bearer(alice));
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.map((row: { toolName: string }) => row.toolName).sort(), [
      "todos_list",
      "todos_read",
    ]);
    const view = await request(app).get("/chat/apps/todos_list").set(bearer(alice));
    assert.equal(view.status, 200);
    assert.equal(view.body.data.mimeType, "text/html;profile=mcp-app");
    assert.match(view.body.data.html, /Content-Security-Policy/);
    assert.equal(
      (await request(app).get("/chat/apps/todos_create").set(bearer(alice))).status,
      404,
    );
    assert.equal((await request(app).get("/chat/apps").set({})).status, 401);
  });

  test("a read runs at once and answers MCP's tools/call result", async () => {
    const res = await request(app)
      .post("/chat/app-calls")
      .set(bearer(alice))
      .send({ conversationId, name: "todos_list", arguments: { sort: "title" } });
    assert.equal(res.status, 200);
    const { result } = res.body.data;
    assert.equal(result.structuredContent.data[0].title, "buy milk");
    assert.equal(result.content[0].type, "text");
  });

  test("a write waits for the person: recorded, nothing runs, one answer from the right user", async () => {
    const held = await request(app)
      .post("/chat/app-calls")
      .set(bearer(alice))
      .send({ conversationId, name: "todos_update", arguments: { id: todoId, completed: true } });
    assert.equal(held.status, 202);
    const { toolCallId, approvalId, toolName } = held.body.data.approval;
    assert.equal(toolName, "todos_update");
    assert.equal(await completed(), false, "nothing ran before the approval");
    const pending = await request(app).get("/chat/approvals").set(bearer(alice));
    assert.deepEqual(
      pending.body.data.map((row: { toolCallId: string }) => row.toolCallId),
      [toolCallId],
    );

    // Another user, another conversation or another approval id: refused, nothing runs.
    const bobsConversation = await Conversation.create({ ownerId: bob.userId, title: "b" });
    const asBob = await request(app)
      .post(`/chat/app-calls/${toolCallId}`)
      .set(bearer(bob))
      .send({ conversationId: String(bobsConversation._id), approvalId, approved: true });
    assert.equal(asBob.status, 403);
    const wrongId = await request(app)
      .post(`/chat/app-calls/${toolCallId}`)
      .set(bearer(alice))
      .send({ conversationId, approvalId: "not-the-one", approved: true });
    assert.equal(wrongId.status, 403);
    assert.equal(await completed(), false);

    const approved = await request(app)
      .post(`/chat/app-calls/${toolCallId}`)
      .set(bearer(alice))
      .send({ conversationId, approvalId, approved: true });
    assert.equal(approved.status, 200);
    assert.equal(approved.body.data.result.structuredContent.data.completed, true);
    assert.equal(await completed(), true);
    const again = await request(app)
      .post(`/chat/app-calls/${toolCallId}`)
      .set(bearer(alice))
      .send({ conversationId, approvalId, approved: true });
    assert.equal(again.status, 409, "an approved call runs once");
  });

  test("a denied write writes nothing and says so", async () => {
    const held = await request(app)
      .post("/chat/app-calls")
      .set(bearer(alice))
      .send({ conversationId, name: "todos_update", arguments: { id: todoId, completed: false } });
    const { toolCallId, approvalId } = held.body.data.approval;
    const denied = await request(app)
      .post(`/chat/app-calls/${toolCallId}`)
      .set(bearer(alice))
      .send({ conversationId, approvalId, approved: false });
    assert.equal(denied.status, 200);
    assert.equal(denied.body.data.result.isError, true);
    assert.equal(await completed(), true, "still completed: the denied call wrote nothing");
  });

  test("a tool the caller lacks answers like one that does not exist; no routes without apps", async () => {
    const unknown = await request(app)
      .post("/chat/app-calls")
      .set(bearer(alice))
      .send({ conversationId, name: "users_list", arguments: {} });
    assert.equal(unknown.status, 404);
    const plain = buildApp(false);
    const carol = await signUp(plain, "carol");
    assert.equal((await request(plain).get("/chat/apps").set(bearer(carol))).status, 404);
  });
});
