/**
 * Stored conversations are valid AI SDK messages (issue 23, item 1): what `GET
 * /chat/conversations/:id/messages` serves back passes the SDK's own `validateUIMessages` and
 * continues the conversation, for approved, denied, failed and read tool calls; keys with `$` and
 * `.` round-trip; rows stored the old way (parts with `null` keys) are repaired when read.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { validateUIMessages } from "ai";
import type { Express } from "express";
import request from "supertest";
import { ChatMessage, Conversation } from "../../src/chat/index.js";
import type { PlainObject } from "../../src/core/types.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { Todo } from "../helpers/models.js";
import {
  answerApproval,
  approvalAsked,
  assistantMessage,
  buildChatApp,
  postChat,
  scriptedModel,
  userMessage,
} from "./helpers.js";

useTestDatabase("chat_store");

/** The conversation as a page gets it after a reload, in the shape useChat holds. */
async function servedBack(app: Express, user: TestUser, conversationId: string) {
  const res = await request(app)
    .get(`/chat/conversations/${conversationId}/messages`)
    .set(bearer(user));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body.data as PlainObject[]).map((row) => ({
    id: row.messageId as string,
    role: row.role as "user" | "assistant",
    parts: row.parts as PlainObject[],
  }));
}

/** Sends another message after the served-back history; the model must be called and reply. */
async function continueAfterReload(app: Express, user: TestUser, conversationId: string) {
  const history = await servedBack(app, user, conversationId);
  // The SDK's own check of the served-back messages.
  await validateUIMessages({ messages: history });
  const reply = await postChat(app, user, {
    conversationId,
    messages: [...history, userMessage("And now?")],
  });
  assert.equal(reply.status, 200);
  assert.ok(!reply.chunks.some((chunk) => chunk.type === "error"), JSON.stringify(reply.chunks));
  return reply;
}

describe("stored chat messages", () => {
  let ada: TestUser;
  before(async () => {
    ada = await signUp(buildChatApp({ model: scriptedModel() }), "ada");
  });

  test("after an approved write, the served-back history continues the conversation", async () => {
    const model = scriptedModel([
      { tools: [["todos_create", { title: "Buy milk" }]] },
      { text: ["Created."] },
      { text: ["Still here."] },
    ]);
    const app = buildChatApp({ model });
    const { conversationId, pending } = await approvalAsked(
      app,
      ada,
      userMessage("Add milk", "s-1"),
    );
    const approved = await postChat(app, ada, {
      conversationId,
      messages: [userMessage("Add milk", "s-1"), answerApproval(pending, true)],
    });
    assert.equal(approved.text, "Created.");
    await assistantMessage(conversationId, (parts) =>
      parts.some((part) => part.state === "output-available"),
    );
    const reply = await continueAfterReload(app, ada, conversationId);
    assert.equal(reply.text, "Still here.");
    // No stored part holds a null where the SDK expects a missing key.
    const rows = await ChatMessage.find({ conversationId })
      .select("+partsJson +parts")
      .lean<PlainObject[]>();
    assert.ok(rows.every((row) => typeof row.partsJson === "string"));
    assert.doesNotMatch(JSON.stringify(rows), /":null/);
  });

  test("after a denied write, a failed call and a read call, the history continues", async () => {
    const todo = await Todo.create({ title: "Keep", ownerId: ada.userId });
    const model = scriptedModel([
      { tools: [["todos_delete", { id: String(todo._id) }]] },
      { text: ["Kept."] },
      // A read of no such id, a call of no such tool (output-error), then a list and a search.
      {
        tools: [
          ["todos_read", { id: "000000000000000000000000" }],
          ["todos_erase_everything", { all: true }],
        ],
      },
      {
        tools: [
          ["todos_list", {}],
          ["search_docs", { query: "approval" }],
        ],
      },
      { text: ["Listed."] },
      { text: ["Fine."] },
    ]);
    const app = buildChatApp({ model, docs: { paths: ["docs/chat-and-react.md"] } });
    const { conversationId, pending } = await approvalAsked(app, ada, userMessage("Delete", "d-1"));
    const denied = await postChat(app, ada, {
      conversationId,
      messages: [userMessage("Delete", "d-1"), answerApproval(pending, false)],
    });
    assert.equal(denied.text, "Kept.");
    await assistantMessage(conversationId, (parts) =>
      parts.some((part) => part.state === "output-denied"),
    );
    const reads = await continueAfterReload(app, ada, conversationId);
    assert.equal(reads.text, "Listed.");
    const stored = await assistantMessage(conversationId, (parts) =>
      parts.some((part) => part.type === "tool-todos_list" && part.state === "output-available"),
    );
    const states = stored.parts.map((part) => `${part.type}:${part.state ?? ""}`);
    assert.ok(
      states.some((state) => state.endsWith(":output-error")),
      states.join(" "),
    );
    assert.ok(states.includes("tool-search_docs:output-available"), states.join(" "));
    const last = await continueAfterReload(app, ada, conversationId);
    assert.equal(last.text, "Fine.");
  });

  test("tool inputs with `$` and dotted keys are stored and served back losslessly", async () => {
    const input = { filter: { status: { $in: ["draft"] }, "owner.name": "Ada" } };
    const model = scriptedModel([
      { tools: [["todos_list", input]] },
      { text: ["Filtered."] },
      { text: ["Again."] },
    ]);
    const app = buildChatApp({ model, approval: "none" });
    const first = await postChat(app, ada, { messages: [userMessage("Drafts?", "q-1")] });
    assert.equal(first.status, 200);
    const conversationId = first.headers["x-conversation-id"];
    const stored = await assistantMessage(conversationId, (parts) =>
      parts.some((part) => part.type === "text"),
    );
    const call = stored.parts.find((part) => part.type === "tool-todos_list");
    assert.deepEqual(call?.input, input);
    const history = await servedBack(app, ada, conversationId);
    const served = history[1]?.parts.find((part) => part.type === "tool-todos_list");
    assert.deepEqual(served?.input, input);
    const again = await continueAfterReload(app, ada, conversationId);
    assert.equal(again.text, "Again.");
  });

  test("rows stored before this change (parts with null keys) are repaired when read", async () => {
    const app = buildChatApp({ model: scriptedModel([{ text: ["Repaired."] }]) });
    const conversation = await Conversation.create({ ownerId: ada.userId, title: "Old" });
    const conversationId = String(conversation._id);
    await ChatMessage.collection.insertMany([
      {
        conversationId: conversation._id,
        ownerId: conversation.ownerId,
        messageId: "old-u",
        role: "user",
        parts: [{ type: "text", text: "Add milk", providerMetadata: null }],
        createdAt: new Date(Date.now() - 2000),
      },
      {
        conversationId: conversation._id,
        ownerId: conversation.ownerId,
        messageId: "old-a",
        role: "assistant",
        parts: [
          { type: "step-start" },
          {
            type: "tool-todos_create",
            toolCallId: "old-call",
            state: "output-available",
            input: { title: "Buy milk" },
            output: { data: { id: "x", title: "Buy milk", dueDate: null } },
            providerExecuted: null,
            rawInput: null,
            errorText: null,
            preliminary: null,
            approval: { id: "old-approval", approved: true, reason: null },
          },
          { type: "text", text: "Created.", state: "done", providerMetadata: null },
        ],
        createdAt: new Date(Date.now() - 1000),
      },
    ]);
    const history = await servedBack(app, ada, conversationId);
    const tool = history[1]?.parts[1] as PlainObject;
    assert.equal("providerExecuted" in tool, false);
    assert.equal("rawInput" in tool, false);
    assert.equal("reason" in (tool.approval as PlainObject), false);
    // Nulls inside the tool's own data are data, and stay.
    assert.equal((tool.output as { data: PlainObject }).data.dueDate, null);
    const reply = await continueAfterReload(app, ada, conversationId);
    assert.equal(reply.text, "Repaired.");
  });
});
