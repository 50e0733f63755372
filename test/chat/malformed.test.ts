/**
 * Malformed input to the chat is a 400 naming what is wrong, never a 500 (issue 33.9):
 * - `POST /chat` with a `null` part, a text part without `text`, `"text": null`, a message id
 *   that is an object: each was a TypeError (a 500) or a query;
 * - `POST /chat/app-calls` with arguments that do not fit the tool's input schema
 *   (`{"query": {"$ne": 1}}` crashed inside MiniSearch): the arguments are checked against the
 *   schema before the tool runs, for the docs tool and the app's own tools alike.
 * The server's log shows no 5xx and no fault afterwards.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { ChatMessage, ChatToolApproval, Conversation, chatPlugin } from "../../src/chat/index.js";
import type { PlainObject } from "../../src/core/types.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { Todo, User } from "../helpers/models.js";
import { JWT_SECRET, todoOptions } from "../helpers/restApp.js";
import { serverLog } from "../helpers/serverLog.js";
import { postChat, scriptedModel } from "./helpers.js";

useTestDatabase("chat_malformed");

describe("malformed chat input is a 400", () => {
  const log = serverLog();
  let app: Express;
  let ada: TestUser;
  let model: ReturnType<typeof scriptedModel>;
  let conversationId: string;

  before(async () => {
    model = scriptedModel();
    const terreno = new TerrenoApp({
      userModel: User,
      auth: { jwt: { secret: JWT_SECRET } },
      mcp: { apps: true },
      ...log.appOptions,
    }).register(modelRouter(Todo, todoOptions()));
    terreno.register(
      chatPlugin({
        model,
        rateLimit: false,
        docs: { paths: ["docs/chat-and-react.md"] },
      }),
    );
    app = terreno.build();
    ada = await signUp(app, "ada");
    const conversation = await Conversation.create({ ownerId: ada.userId, title: "apps" });
    conversationId = String(conversation._id);
  });

  test("POST /chat: null parts, parts without their fields, odd ids are a 400 naming the field", async () => {
    const message = (parts: unknown, extra: PlainObject = {}) => ({
      messages: [{ id: "u1", role: "user", parts, ...extra }],
    });
    const cases: Array<[unknown, string]> = [
      [message([null]), "messages.0.parts.0"],
      [message([{ type: "text" }]), "messages.0.parts.0"],
      [message([{ type: "text", text: null }]), "messages.0.parts.0"],
      [message([{ type: "text", text: 42 }]), "messages.0.parts.0"],
      [message(["hello"]), "messages.0.parts.0"],
      [message([[]]), "messages.0.parts.0"],
      [message([{ text: "no type" }]), "messages.0.parts.0"],
      [message([{ type: "text", text: "ok" }, { type: "nonsense" }]), "messages.0.parts.1"],
      [message([{ type: "file", mediaType: "text/plain" }]), "messages.0.parts.0"],
      [message([{ type: "file", url: "data:text/plain,hi" }]), "messages.0.parts.0"],
      [
        message([{ type: "file", url: "not a url", mediaType: "text/plain" }]),
        "messages.0.parts.0",
      ],
      [message([{ type: "steering-message", id: "s", parts: null }]), "messages.0.parts.0"],
      [message([{ type: "tool-todos_list", state: "output-available" }]), "messages.0.parts.0"],
      [message([{ type: "dynamic-tool", toolCallId: "c", state: "x" }]), "messages.0.parts.0"],
      [message([{ type: "text", text: "hi" }], { id: { $ne: 1 } }), "messages.0"],
    ];
    for (const [body, field] of cases) {
      const reply = await postChat(app, ada, body);
      assert.equal(reply.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(reply.body)}`);
      const answer = reply.body as PlainObject;
      assert.equal(answer.code, "validation_failed");
      assert.deepEqual(Object.keys(answer.fields as PlainObject), [field], JSON.stringify(body));
    }
    assert.equal(model.doStreamCalls.length, 0, "the model is never called");
    assert.equal(await ChatMessage.countDocuments({ ownerId: ada.userId }), 0);
    assert.deepEqual(log.serverErrors(), []);
  });

  test("POST /chat/app-calls: arguments that do not fit the tool's schema are a 400 and nothing runs", async () => {
    const call = (name: string, args: unknown) =>
      request(app)
        .post("/chat/app-calls")
        .set(bearer(ada))
        .send({ conversationId, name, arguments: args });
    const cases: Array<[string, unknown, string]> = [
      ["search_docs", { query: { $ne: 1 } }, "arguments"],
      ["search_docs", { query: ["a"] }, "arguments"],
      ["search_docs", { query: "ok", extra: 1 }, "arguments"],
      ["search_docs", "just a string", "arguments"],
      ["todos_list", { limit: "many" }, "arguments.limit"],
      ["todos_list", [1, 2], "arguments"],
      ["todos_read", { id: { $ne: 1 } }, "arguments.id"],
      ["todos_create", { title: { $ne: 1 } }, "arguments.title"],
      ["todos_create", { nope: true }, "arguments"],
    ];
    for (const [name, args, field] of cases) {
      const res = await call(name, args);
      assert.equal(res.status, 400, `${name} ${JSON.stringify(args)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, "validation_failed");
      const fields = Object.keys(res.body.fields ?? {});
      assert.ok(
        fields.some((key) => key === field || key.startsWith(`${field}.`)),
        `${name} ${JSON.stringify(args)}: fields ${JSON.stringify(fields)}`,
      );
    }
    // A gated write with bad arguments is not recorded as a question for the person.
    assert.equal(await ChatToolApproval.countDocuments({ ownerId: ada.userId }), 0);
    assert.equal(await Todo.countDocuments({}), 0);

    // Arguments that fit still run.
    const ok = await call("search_docs", { query: "useChat" });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.notEqual(ok.body.data.result.isError, true);
    const list = await call("todos_list", {});
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.deepEqual(log.serverErrors(), []);
  });
});
