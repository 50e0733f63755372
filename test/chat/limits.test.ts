/**
 * The chat plugin's message-length limit (issue 23.4): a message longer than the limit is a 413
 * naming the limit, nothing is stored and the model is never called; `GET /chat/info` publishes
 * the limit so a page can say so before sending.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import request from "supertest";
import { ChatMessage, Conversation } from "../../src/chat/index.js";
import type { PlainObject } from "../../src/core/types.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { buildChatApp, postChat, scriptedModel, userMessage } from "./helpers.js";

useTestDatabase("chat_limits");

describe("chat message-length limit", () => {
  let ada: TestUser;

  before(async () => {
    ada = await signUp(buildChatApp({ model: scriptedModel() }), "ada");
  });

  test("default 8,000 characters: a 13,000-character message is a 413 naming the limit; nothing is stored or sent", async () => {
    const model = scriptedModel();
    const app = buildChatApp({ model });
    const before = await ChatMessage.countDocuments({});
    const long = await postChat(app, ada, { messages: [userMessage("x".repeat(13_000))] });
    assert.equal(long.status, 413);
    const body = long.body as PlainObject;
    assert.equal(body.code, "payload_too_large");
    assert.match(String(body.detail), /8,000 characters/);
    assert.deepEqual(body.fields, { "messages.0": "longer than 8000 characters" });
    assert.equal(model.doStreamCalls.length, 0, "the model is never called");
    assert.equal(await ChatMessage.countDocuments({}), before, "nothing is stored");
    assert.equal(await Conversation.countDocuments({ ownerId: ada.userId }), 0);

    // Exactly the limit is accepted.
    const exact = await postChat(app, ada, { messages: [userMessage("y".repeat(8_000))] });
    assert.equal(exact.status, 200);
    assert.equal(model.doStreamCalls.length, 1);
  });

  test("configurable; counts every user message's text; GET /chat/info publishes it", async () => {
    const app = buildChatApp({ model: scriptedModel(), maxMessageLength: 20 });
    const split = await postChat(app, ada, {
      messages: [
        {
          id: "u1",
          role: "user",
          parts: [
            { type: "text", text: "0123456789" },
            { type: "text", text: "0123456789!" },
          ],
        },
      ],
    });
    assert.equal(split.status, 413);
    assert.match(String((split.body as PlainObject).detail), /20 characters/);
    // An earlier user message in the history counts too: it is sent to the model again.
    const history = await postChat(app, ada, {
      messages: [
        userMessage("a".repeat(21)),
        { id: "a1", role: "assistant", parts: [{ type: "text", text: "ok" }] },
        userMessage("short"),
      ],
    });
    assert.equal(history.status, 413);
    assert.deepEqual((history.body as PlainObject).fields, {
      "messages.0": "longer than 20 characters",
    });
    // The assistant's own text is not the user's to shorten.
    const reply = await postChat(app, ada, {
      messages: [
        userMessage("hi"),
        { id: "a2", role: "assistant", parts: [{ type: "text", text: "z".repeat(100) }] },
        userMessage("again"),
      ],
    });
    assert.equal(reply.status, 200);

    const info = await request(app).get("/chat/info").set(bearer(ada));
    assert.equal(info.body.data.maxMessageLength, 20);
    const defaults = await request(buildChatApp({ model: scriptedModel() }))
      .get("/chat/info")
      .set(bearer(ada));
    assert.equal(defaults.body.data.maxMessageLength, 8000);
  });
});
