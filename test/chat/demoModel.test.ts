/** createDemoModel(): the offline rule-based model driving real tools (getMCPTools, chatPlugin). */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { generateText, isStepCount, jsonSchema, streamText, type ToolSet, tool } from "ai";
import { getMCPTools } from "../../src/ai/index.js";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { toUser } from "../../src/auth/userPlugin.js";
import { createDemoModel } from "../../src/chat/demo.js";
import { parseIntent } from "../../src/chat/demoIntent.js";
import { ChatTelemetry } from "../../src/chat/index.js";
import { TerrenoError } from "../../src/core/errors.js";
import type { User as Caller, PlainObject } from "../../src/core/types.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { errorOutput, toModelOutput } from "../../src/tools/aiSdk/toolOutput.js";
import { signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { Todo, User } from "../helpers/models.js";
import { JWT_SECRET, todoOptions } from "../helpers/restApp.js";
import {
  answerApproval,
  buildChatApp,
  pendingApproval,
  postChat,
  userMessage,
  waitFor,
} from "./helpers.js";

useTestDatabase("chat_demo_model");

function isoDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

const NOW = new Date(2026, 5, 10, 12, 0, 0);

describe("demo model", () => {
  let app: TerrenoApp;
  let ada: TestUser;
  let caller: Caller;

  before(async () => {
    app = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } }).register(
      modelRouter(Todo, todoOptions()),
    );
    const express = app.build();
    ada = await signUp(express, "ada");
    const doc = await User.findById(ada.userId);
    assert.ok(doc);
    caller = toUser(doc);
  });

  test("is an offline v4 (AI SDK 7) model that says so", async () => {
    const model = createDemoModel();
    assert.equal(model.specificationVersion, "v4");
    assert.equal(model.modelId, "terreno-demo");
    const result = await generateText({ model, prompt: "tell me a joke" });
    assert.match(result.text, /offline demo/);
    assert.match(result.text, /add a todo/);
  });

  test("a failed tool call is told as one sentence, never as raw JSON", async () => {
    const model = createDemoModel();
    const failure = toModelOutput({
      output: errorOutput(new TerrenoError("forbidden", "You may not list these todos.")),
    });
    const result = await model.doGenerate({
      prompt: [
        { role: "user", content: [{ type: "text", text: "complete buy milk" }] },
        {
          role: "assistant",
          content: [{ type: "tool-call", toolCallId: "c1", toolName: "todos_list", input: {} }],
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: "c1",
              toolName: "todos_list",
              // An error-text output: the same shape in the model's prompt.
              output: failure as { type: "error-text"; value: string },
            },
          ],
        },
      ],
    });
    const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
    // One sentence, and not the error again: the tool call's own result carries it (the page
    // shows it on the call's card), so a person reads it once.
    assert.equal(text, "That did not work: the tool refused it (its card says why).");
    assert.doesNotMatch(text, /You may not|\{|forbidden/);
  });

  test("parses the phrasings it understands", () => {
    // [what the person says, whether docs search is on, the intent]
    const phrasings: Array<[string, boolean, ReturnType<typeof parseIntent>]> = [
      [
        "add a todo to buy milk tomorrow",
        false,
        { kind: "create", title: "buy milk", dueDate: "2026-06-11" },
      ],
      ["Add a todo: call mom", false, { kind: "create", title: "call mom" }],
      ["list my todos", false, { kind: "list" }],
      ["list the projects", false, { kind: "list", resource: "projects" }],
      ["show the docs", true, { kind: "docs", query: "show the docs" }],
      ["complete “buy milk”", false, { kind: "complete", title: "buy milk" }],
      ["mark buy milk as done", false, { kind: "complete", title: "buy milk" }],
      ["delete the todo buy milk", false, { kind: "delete", title: "buy milk" }],
      [
        "how do I connect Claude Code?",
        true,
        { kind: "docs", query: "how do I connect Claude Code" },
      ],
      ["how do I connect Claude Code?", false, { kind: "help" }],
    ];
    for (const [phrase, docs, intent] of phrasings) {
      assert.deepEqual(parseIntent(phrase, NOW, docs), intent, phrase);
    }
  });

  test("generateText: add (with tomorrow's date), list, complete via todos_update, delete", async () => {
    const model = createDemoModel();
    const tools = getMCPTools({ app, user: caller });
    const tomorrow = new Date();
    tomorrow.setDate(tomorrow.getDate() + 1);

    const added = await generateText({
      model,
      tools,
      prompt: "add a todo to buy milk tomorrow",
      stopWhen: isStepCount(5),
    });
    assert.deepEqual(
      added.steps.map((step) => step.toolCalls.map((call) => call.toolName)),
      [["todos_create"], []],
    );
    assert.deepEqual(added.steps[0]?.toolCalls[0]?.input, {
      title: "buy milk",
      dueDate: isoDate(tomorrow),
    });
    assert.equal(added.text, `Added “buy milk” (due ${isoDate(tomorrow)}).`);
    const stored = await Todo.findOne({
      ownerId: ada.userId,
      title: "buy milk",
    }).lean<PlainObject>();
    assert.ok(stored);
    assert.equal(stored.completed, false);

    const listed = await generateText({
      model,
      tools,
      prompt: "list my todos",
      stopWhen: isStepCount(5),
    });
    assert.equal(listed.steps[0]?.toolCalls[0]?.toolName, "todos_list");
    assert.match(listed.text, /^You have 1 todo:\n- buy milk$/);

    // The test app has no `complete` action: the model falls back to todos_update.
    const completed = streamText({
      model,
      tools,
      prompt: "complete buy milk",
      stopWhen: isStepCount(5),
    });
    let text = "";
    for await (const delta of completed.textStream) text += delta;
    const steps = await completed.steps;
    assert.deepEqual(
      steps.map((step) => step.toolCalls.map((call) => call.toolName)),
      [["todos_list"], ["todos_update"], []],
    );
    assert.deepEqual(steps[0]?.toolCalls[0]?.input, { filter: { title: "buy milk" } });
    assert.deepEqual(steps[1]?.toolCalls[0]?.input, { id: String(stored._id), completed: true });
    assert.equal(text, "Completed “buy milk”.");
    const done = await Todo.findById(stored._id).lean<PlainObject>();
    assert.equal(done?.completed, true);

    const deleted = await generateText({
      model,
      tools,
      prompt: "delete buy milk",
      stopWhen: isStepCount(5),
    });
    assert.deepEqual(
      deleted.steps.map((step) => step.toolCalls.map((call) => call.toolName)),
      [["todos_list"], ["todos_delete"], []],
    );
    assert.equal(deleted.text, "Deleted “buy milk”.");

    const missing = await generateText({
      model,
      tools,
      prompt: "complete walk the dog",
      stopWhen: isStepCount(5),
    });
    assert.equal(missing.text, "I found no todo titled “walk the dog”.");
  });

  test("prefers a `complete` action when the tool set has one", async () => {
    const calls: Array<[string, unknown]> = [];
    const stub = (name: string, output: unknown) =>
      tool({
        inputSchema: jsonSchema<PlainObject>({ type: "object" }),
        execute: async (input: PlainObject) => {
          calls.push([name, input]);
          return output;
        },
      });
    const id = "0123456789abcdef01234567";
    const tools: ToolSet = {
      todos_list: stub("todos_list", { data: [{ id, title: "buy milk" }] }),
      todos_update: stub("todos_update", { data: { id, title: "buy milk" } }),
      todos_complete: stub("todos_complete", { data: { id, title: "buy milk", completed: true } }),
    };
    const result = await generateText({
      model: createDemoModel(),
      tools,
      prompt: "complete buy milk",
      stopWhen: isStepCount(5),
    });
    assert.deepEqual(calls, [
      ["todos_list", { filter: { title: "buy milk" } }],
      ["todos_complete", { id }],
    ]);
    assert.equal(result.text, "Completed “buy milk”.");
  });

  describe("through chatPlugin", () => {
    let dir: string;
    let docs: string;

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), "demo-docs-"));
      docs = join(dir, "mcp.md");
      await writeFile(
        docs,
        "# MCP\n\nThe /mcp endpoint.\n\n## Connecting Claude Code\n\nRun this once:\n\n```sh\nclaude mcp add --transport http app http://localhost:4000/mcp\n```\n",
      );
    });
    after(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    test('approval "writes": the create waits for approval', async () => {
      const chat = buildChatApp({ model: createDemoModel(), approval: "writes", persist: false });
      const user = await signUp(chat, "gated");
      const reply = await postChat(chat, user, {
        messages: [userMessage("add a todo to buy bread tomorrow")],
      });
      assert.equal(reply.status, 200);
      const request = reply.chunks.find((chunk) => chunk.type === "tool-approval-request");
      assert.ok(request, "an approval request");
      const input = reply.chunks.find((chunk) => chunk.type === "tool-input-available");
      assert.equal(input?.toolName, "todos_create");
      assert.equal((input?.input as PlainObject | undefined)?.title, "buy bread");
      assert.equal(await Todo.countDocuments({ ownerId: user.userId }), 0);
      await waitFor(() => ChatTelemetry.findOne({ ownerId: user.userId }).lean());
    });

    test("approved, the create runs and the model summarizes; denied, it says so", async () => {
      const chat = buildChatApp({ model: createDemoModel(), approval: "writes" });
      const user = await signUp(chat, "approver");
      const ask = userMessage("add a todo to buy eggs", "e-1");
      const first = await postChat(chat, user, { messages: [ask] });
      const conversationId = first.headers["x-conversation-id"] as string;
      const denied = await postChat(chat, user, {
        conversationId,
        messages: [ask, answerApproval(await pendingApproval(conversationId), false)],
      });
      assert.equal(denied.text, "Okay, I did not do that (the call was not approved).");
      assert.equal(await Todo.countDocuments({ ownerId: user.userId }), 0);
      // A denied call stays denied: asking again gives a new call to approve.
      const again = await postChat(chat, user, { messages: [ask] });
      const againId = again.headers["x-conversation-id"] as string;
      const approved = await postChat(chat, user, {
        conversationId: againId,
        messages: [ask, answerApproval(await pendingApproval(againId), true)],
      });
      assert.equal(approved.text, "Added “buy eggs”.");
      assert.equal(await Todo.countDocuments({ ownerId: user.userId, title: "buy eggs" }), 1);
      await waitFor(
        async () => (await ChatTelemetry.countDocuments({ ownerId: user.userId })) >= 4,
      );
    });

    test("search_docs runs without approval and the answer cites the docs", async () => {
      const chat = buildChatApp({
        model: createDemoModel(),
        approval: "writes",
        persist: false,
        docs: { paths: [docs], root: dir },
      });
      const user = await signUp(chat, "reader");
      const reply = await postChat(chat, user, {
        messages: [userMessage("how do I connect Claude Code?")],
      });
      assert.equal(reply.status, 200);
      assert.equal(
        reply.chunks.some((chunk) => chunk.type === "tool-approval-request"),
        false,
      );
      const output = reply.chunks.find((chunk) => chunk.type === "tool-output-available");
      const hits = (output?.output as { data: PlainObject[] } | undefined)?.data ?? [];
      assert.equal(hits[0]?.path, "mcp.md");
      assert.equal(hits[0]?.heading, "Connecting Claude Code");
      await waitFor(() => ChatTelemetry.findOne({ ownerId: user.userId }).lean());
      // Markdown: the heading in bold, the file as code, the passage quoted with its code block.
      assert.match(
        reply.text,
        /^From the docs:\n\n\*\*Connecting Claude Code\*\* \(`mcp\.md`\)\n\n> Run this once:\n>\n> ```sh\n> claude mcp add --transport http app http:\/\/127\.0\.0\.1:\d+\/mcp\n> ```$/,
      );
      // The docs say port 4000; the answer names this server's own address instead.
      assert.doesNotMatch(reply.text, /:4000/);
      assert.match(String(hits[0]?.excerpt), /http:\/\/127\.0\.0\.1:\d+\/mcp/);
      assert.match(
        String(hits[0]?.code),
        /^```sh\nclaude mcp add .* http:\/\/127\.0\.0\.1:\d+\/mcp\n```$/,
      );
    });
  });
});
