/**
 * Durable turns (issue 23.3): a turn is stored before the model streams and saved as it grows;
 * a client that goes away (a reload) does not stop it, and a second app on the same database
 * replays it from its buffer and follows it to the end (`GET /chat/:id/stream`, the AI SDK's
 * resume). Stop (`DELETE /chat/:id/stream`, sent to the other app) ends it, stored as stopped; a
 * message after a Stop, a denied write or a tool error gets a reply. Over real HTTP.
 */
import assert from "node:assert/strict";
import type { Server } from "node:http";
import { after, before, describe, test } from "node:test";
import { type UIMessage, validateUIMessages } from "ai";
import type { MockLanguageModelV4 } from "ai/test";
import { ChatMessage, ChatStreamChunk, Conversation } from "../../src/chat/index.js";
import type { PlainObject } from "../../src/core/types.js";
import { signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import {
  answerApproval,
  approvalAsked,
  assistantMessage,
  buildChatApp,
  postChat,
  scriptedModel,
  turnsEnded,
  userMessage,
  waitFor,
} from "./helpers.js";
import { FULL, listen, readChunks, readThenLeave, slowModel, textOf } from "./turnHelpers.js";

useTestDatabase("chat_turns");

describe("durable chat turns", () => {
  let ada: TestUser;
  const servers: Server[] = [];

  before(async () => {
    ada = await signUp(buildChatApp({ model: scriptedModel() }), "ada");
  });
  after(async () => {
    await turnsEnded(5000);
    for (const server of servers) server.close();
  });

  /** Two apps (two instances) on one database, each with its own plugin and model. */
  async function twoInstances(model: MockLanguageModelV4) {
    const a = await listen(buildChatApp({ model, approval: "none" }));
    const b = await listen(buildChatApp({ model: scriptedModel(), approval: "none" }));
    servers.push(a.server, b.server);
    return { a: a.url, b: b.url };
  }

  const headers = () => ({ authorization: `Bearer ${ada.token}` });

  function send(url: string, body: unknown, signal?: AbortSignal) {
    return fetch(`${url}/chat`, {
      method: "POST",
      headers: { ...headers(), "content-type": "application/json" },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
  }

  test("a reload mid-reply: the turn goes on, another instance replays it and follows it to the end", async () => {
    const { model, state } = slowModel(20, 10);
    const { a, b } = await twoInstances(model);
    const hangUp = new AbortController();
    const first = await send(a, { messages: [userMessage("tell me", "u-reload")] }, hangUp.signal);
    // The client reads a few words, then goes away (a reload).
    const { conversationId, messageId } = await readThenLeave(first, hangUp);

    // The turn was stored before the model streamed, and its text is saved as it arrives.
    const partial = await waitFor(async () => {
      const row = await ChatMessage.findOne({ conversationId, messageId })
        .select("+partsJson")
        .lean<PlainObject>();
      const parts = JSON.parse(String(row?.partsJson ?? "[]")) as PlainObject[];
      const text = parts.map((part) => part.text ?? "").join("");
      return row?.status === "streaming" && text.length > 0 && text.length < FULL.length
        ? text
        : undefined;
    }, 5000);
    assert.ok(FULL.startsWith(partial));
    // What turnSettled (helpers.ts) waits on is visible through the API while the turn runs.
    const running = await fetch(`${b}/chat/conversations/${conversationId}`, {
      headers: headers(),
    });
    const runningData = ((await running.json()) as { data: PlainObject }).data;
    assert.equal(typeof runningData.activeStreamId, "string");

    // Instance B serves the reattach: from the turn's first chunk (the same message id) to its end.
    const resumed = await fetch(`${b}/chat/${conversationId}/stream`, { headers: headers() });
    assert.equal(resumed.status, 200);
    // The model goes on only now: the replay has the words so far and follows the rest.
    state.release();
    assert.match(String(resumed.headers.get("content-type")), /text\/event-stream/);
    const replay = await readChunks(resumed);
    assert.equal(replay[0]?.type, "start");
    assert.equal(replay[0]?.messageId, messageId);
    assert.equal(textOf(replay), FULL, "the reply so far, and the rest as it came");
    assert.equal(replay.at(-1)?.type, "finish");
    assert.equal(state.aborted, 0, "going away did not stop the model");

    // Stored complete; nothing streams any more; the stored messages are valid UI messages.
    const done = await assistantMessage(conversationId, (parts) =>
      parts.some((part) => part.text === FULL),
    );
    assert.equal(done.status, "done");
    const none = await fetch(`${b}/chat/${conversationId}/stream`, { headers: headers() });
    assert.equal(none.status, 204);
    const conversation = await Conversation.findById(conversationId).lean<PlainObject>();
    assert.equal(conversation?.activeStreamId, undefined);
    await validateStored(b, conversationId);
  });

  test("Stop sent to another instance ends the turn, stored as stopped; the next message gets a reply", async () => {
    const { model, state } = slowModel(20, 5);
    const { a, b } = await twoInstances(model);
    const ask = userMessage("tell me more");
    const first = await send(a, { id: "chat-stop", messages: [ask] });
    const conversationId = String(first.headers.get("x-conversation-id"));
    const reading = readChunks(first);
    await waitFor(async () => (await ChatStreamChunk.countDocuments({ conversationId })) > 3, 5000);

    // The page's Stop: its own fetch aborts and it tells the server, here instance B.
    const stop = await fetch(`${b}/chat/chat-stop/stream`, {
      method: "DELETE",
      headers: headers(),
    });
    assert.equal(stop.status, 204);
    const chunks = await reading;
    assert.ok(textOf(chunks).length < FULL.length, "the reply ended early");
    await waitFor(async () => state.aborted > 0, 5000);
    const stopped = await assistantMessage(conversationId, () => true);
    await waitFor(
      async () =>
        (await ChatMessage.findOne({ messageId: stopped.messageId }).lean<PlainObject>())
          ?.status === "stopped",
      5000,
    );

    // After a reload the page sends its stored messages and a new one: it gets a reply.
    const history = await validateStored(b, conversationId);
    const next = await postChat(buildChatApp({ model: scriptedModel() }), ada, {
      conversationId,
      messages: [...history, userMessage("and now?")],
    });
    assert.equal(next.status, 200);
    assert.equal(next.text, "ok.");
  });

  test("a message after a denied write, and after a tool error, gets a reply", async () => {
    const model = scriptedModel([
      { tools: [["todos_create", { title: "buy milk" }]] },
      { text: ["Okay, not done."] },
      { text: ["Here I am."] },
      { tools: [["todos_read", { id: "000000000000000000000000" }]] },
      { text: ["That did not work."] },
      { text: ["Still here."] },
    ]);
    const app = buildChatApp({ model });
    const ask = userMessage("add milk");
    const { conversationId, pending: proposed } = await approvalAsked(app, ada, ask);
    const denied = await postChat(app, ada, {
      conversationId,
      messages: [ask, answerApproval(proposed, false)],
    });
    assert.equal(denied.text, "Okay, not done.");
    const afterDenial = await postChat(app, ada, {
      conversationId,
      messages: [...(await storedHistory(conversationId)), userMessage("hello?")],
    });
    assert.equal(afterDenial.status, 200);
    assert.equal(afterDenial.text, "Here I am.");

    const failing = await postChat(app, ada, {
      conversationId,
      messages: [...(await storedHistory(conversationId)), userMessage("read it")],
    });
    assert.equal(failing.status, 200);
    assert.ok(failing.chunks.some((chunk) => chunk.type === "tool-output-available"));
    assert.equal(failing.text, "That did not work.");
    const afterError = await postChat(app, ada, {
      conversationId,
      messages: [...(await storedHistory(conversationId)), userMessage("and?")],
    });
    assert.equal(afterError.status, 200);
    assert.equal(afterError.text, "Still here.");
  });

  /** The stored messages as a reloaded page has them, once every turn is over. */
  async function storedHistory(conversationId: string): Promise<UIMessage[]> {
    await waitFor(async () => {
      const conversation = await Conversation.findById(conversationId).lean<PlainObject>();
      return !conversation?.activeStreamId;
    }, 5000);
    const rows = await ChatMessage.find({ conversationId })
      .select("+partsJson")
      .sort({ createdAt: 1, _id: 1 })
      .lean<PlainObject[]>();
    return rows.map((row) => ({
      id: String(row.messageId),
      role: row.role as UIMessage["role"],
      parts: JSON.parse(String(row.partsJson)) as UIMessage["parts"],
    }));
  }

  /** GET the conversation's messages from `url`: they pass the SDK's validation. */
  async function validateStored(url: string, conversationId: string): Promise<UIMessage[]> {
    await storedHistory(conversationId);
    const res = await fetch(`${url}/chat/conversations/${conversationId}/messages`, {
      headers: headers(),
    });
    const rows = ((await res.json()) as { data: PlainObject[] }).data;
    const messages = rows.map((row) => ({
      id: String(row.messageId),
      role: row.role as UIMessage["role"],
      parts: row.parts as UIMessage["parts"],
      ...(row.status ? { metadata: { status: row.status } } : {}),
    }));
    await validateUIMessages({ messages });
    return messages;
  }
});
