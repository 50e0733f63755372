/**
 * A chat tool call runs at most once per conversation and tool-call id (issue 36, item 2), across
 * reloads and instances: a second run of the same call id, on another app instance, answers the
 * first run's outcome and writes nothing. The key is claimed by a unique insert, atomic on
 * FerretDB and MongoDB alike. (A model that repeats a call id stands in for a resumed or replayed
 * turn: what matters is that the id reaches the tool twice.)
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import type { PlainObject } from "../../src/core/types.js";
import { signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { Todo } from "../helpers/models.js";
import {
  assistantMessage,
  buildChatApp,
  postChat,
  type UIPart,
  USAGE,
  userMessage,
} from "./helpers.js";

useTestDatabase("chat_tool_call_once");

/** A model whose first step calls `todos_create` with `input` under the fixed id `callId`. */
function repeatingModel(callId: string, input: PlainObject): MockLanguageModelV4 {
  let calls = 0;
  return new MockLanguageModelV4({
    modelId: "mock-repeat",
    doStream: async () => {
      calls += 1;
      const parts: LanguageModelV4StreamPart[] =
        calls === 1
          ? [
              { type: "stream-start", warnings: [] },
              {
                type: "tool-call",
                toolCallId: callId,
                toolName: "todos_create",
                input: JSON.stringify(input),
              },
              {
                type: "finish",
                finishReason: { unified: "tool-calls", raw: "tool_calls" },
                usage: USAGE,
              },
            ]
          : [
              { type: "stream-start", warnings: [] },
              { type: "text-start", id: "t1" },
              { type: "text-delta", id: "t1", delta: "Done." },
              { type: "text-end", id: "t1" },
              { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: USAGE },
            ];
      return { stream: convertArrayToReadableStream(parts) };
    },
  });
}

/** The output the stored assistant message shows for `callId`. */
async function outputOf(conversationId: string, callId: string): Promise<PlainObject> {
  const message = await assistantMessage(conversationId, (parts) =>
    parts.some((part) => part.toolCallId === callId && part.state === "output-available"),
  );
  const part = message.parts.find((p: UIPart) => p.toolCallId === callId) as UIPart;
  return part.output as PlainObject;
}

describe("a chat tool call runs once per conversation and call id", () => {
  let ada: TestUser;
  before(async () => {
    ada = await signUp(buildChatApp({ model: repeatingModel("unused", {}) }), "ada");
  });

  test("the same call id on a second instance replays the first outcome; nothing is written twice", async () => {
    const input = { title: "Chat once" };
    const one = buildChatApp({ model: repeatingModel("call-once", input), approval: "none" });
    const two = buildChatApp({ model: repeatingModel("call-once", input), approval: "none" });
    const ask = userMessage("Add Chat once");
    const first = await postChat(one, ada, { messages: [ask] });
    assert.equal(first.status, 200);
    const conversationId = first.headers["x-conversation-id"];
    const firstOutput = await outputOf(conversationId, "call-once");
    assert.equal((firstOutput.data as PlainObject).title, "Chat once");
    assert.equal(await Todo.countDocuments({ title: "Chat once" }), 1);

    const stored = await assistantMessage(conversationId);
    const again = await postChat(two, ada, {
      conversationId,
      messages: [
        ask,
        { id: stored.messageId, role: "assistant", parts: stored.parts },
        userMessage("Again"),
      ],
    });
    assert.equal(again.status, 200);
    assert.equal(await Todo.countDocuments({ title: "Chat once" }), 1, "ran once");
    const replayed = again.chunks.find(
      (chunk) => chunk.type === "tool-output-available" && chunk.toolCallId === "call-once",
    );
    assert.deepEqual(replayed?.output, firstOutput, "the second run answers the first outcome");
  });

  test("the same call id in another conversation is another call", async () => {
    const input = { title: "Chat twice" };
    const one = buildChatApp({ model: repeatingModel("call-shared", input), approval: "none" });
    const two = buildChatApp({ model: repeatingModel("call-shared", input), approval: "none" });
    assert.equal((await postChat(one, ada, { messages: [userMessage("Add")] })).status, 200);
    assert.equal((await postChat(two, ada, { messages: [userMessage("Add")] })).status, 200);
    assert.equal(await Todo.countDocuments({ title: "Chat twice" }), 2);
  });
});
