/**
 * getMCPTools({app, user}) holds only the tools that user sees (the rule /mcp's tools/list
 * applies, src/tools/visibleTools.ts); a hidden tool the model calls anyway answers as an
 * unknown tool does. Without `user` the set is unchanged and the pipeline refuses per call.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { generateText, isStepCount, type ModelMessage, type ToolSet } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { getMCPTools, getMCPToolsAsync } from "../../src/ai/index.js";
import type { User as Caller } from "../../src/core/types.js";
import { signUp } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { User } from "../helpers/models.js";
import { callerOf, EVERYONE, perCallerApp } from "../helpers/perCallerApp.js";

useTestDatabase("ai_per_caller");

const names = (tools: ToolSet) => Object.keys(tools).sort();

/** A model that calls `toolName` once, then answers. */
function callingModel(toolName: string, input: unknown) {
  let step = 0;
  return new MockLanguageModelV4({
    doGenerate: async () => {
      step += 1;
      const usage = {
        inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 1, text: 1, reasoning: undefined },
      };
      if (step === 1) {
        return {
          content: [
            { type: "tool-call", toolCallId: "c1", toolName, input: JSON.stringify(input) },
          ],
          finishReason: { unified: "tool-calls", raw: "tool_calls" },
          usage,
          warnings: [],
        };
      }
      return {
        content: [{ type: "text", text: "ok" }],
        finishReason: { unified: "stop", raw: "stop" },
        usage,
        warnings: [],
      };
    },
  });
}

/** What the model's tool call turned into: the step's tool-error, as the AI SDK reports it. */
async function outcomeOf(tools: ToolSet, toolName: string, input: unknown) {
  const result = await generateText({
    model: callingModel(toolName, input),
    tools,
    prompt: "go",
    stopWhen: isStepCount(2),
  });
  const [first] = result.steps;
  const error = first?.content.find((part) => part.type === "tool-error");
  const toolResult = first?.content.find((part) => part.type === "tool-result");
  return { error, toolResult };
}

describe("getMCPTools: per-caller tools", () => {
  const app = perCallerApp({ ledger: false });
  const express = app.build();
  let aliceCaller: Caller;
  let rootCaller: Caller;

  before(async () => {
    const alice = await signUp(express, "alice");
    const root = await signUp(express, "root");
    await User.updateOne({ _id: root.userId }, { $set: { admin: true } }).exec();
    aliceCaller = await callerOf(alice);
    rootCaller = await callerOf(root);
  });

  test("with `user`, only the tools that user passes; an admin gets the admin ones", () => {
    assert.deepEqual(names(getMCPTools({ app, user: aliceCaller })), EVERYONE);
    assert.deepEqual(names(getMCPTools({ app, user: rootCaller })), [
      ...EVERYONE.slice(0, 2),
      "todos_create",
      "todos_delete",
      "todos_list",
      "todos_read",
      "todos_update",
    ]);
    // include filters first, visibility after: asking for a hidden tool gives none, no error.
    assert.deepEqual(
      names(getMCPTools({ app, user: aliceCaller, include: { tools: ["todos_delete"] } })),
      [],
    );
  });

  test("a hidden tool the model calls answers exactly as a tool that does not exist", async () => {
    const tools = getMCPTools({ app, user: aliceCaller });
    const hidden = await outcomeOf(tools, "todos_delete", { id: aliceCaller.id });
    const unknown = await outcomeOf(tools, "nope_delete", { id: aliceCaller.id });
    assert.ok(hidden.error && unknown.error, "both are tool errors");
    assert.equal(hidden.toolResult, undefined);
    // The AI SDK's answer to a tool name it does not have (NoSuchToolError's message), which
    // lists the available tools: the hidden one is not among them.
    const textOf = (part: typeof hidden.error) => {
      const error = (part as { error?: unknown }).error;
      return String(error instanceof Error ? error.message : error);
    };
    assert.equal(
      textOf(hidden.error).replace("todos_delete", "X"),
      textOf(unknown.error).replace("nope_delete", "X"),
    );
    assert.match(textOf(hidden.error), /unavailable tool 'todos_delete'/);
    assert.doesNotMatch(textOf(hidden.error).split("Available tools:")[1] ?? "", /todos_delete/);
  });

  test("without `user`: every tool as before, and the pipeline refuses per call", async () => {
    const tools = getMCPTools({ app });
    assert.ok(tools.todos_delete, "context-bound sets are unchanged");
    const run = tools.todos_delete?.execute;
    assert.ok(run);
    const output = (await run(
      { id: "0123456789abcdef01234567" },
      {
        toolCallId: "direct",
        messages: [] as ModelMessage[],
        context: { user: aliceCaller },
      },
    )) as { error?: { code?: string } };
    assert.equal(output.error?.code, "forbidden");
  });

  test("async permission checks: getMCPTools throws clearly, getMCPToolsAsync resolves", async () => {
    const withLedger = perCallerApp({ ledger: true });
    assert.throws(
      () => getMCPTools({ app: withLedger, user: aliceCaller }),
      /answered with a promise[\s\S]*getMCPToolsAsync/,
    );
    assert.deepEqual(
      names(await getMCPToolsAsync({ app: withLedger, user: aliceCaller })),
      EVERYONE,
    );
    const forRoot = await getMCPToolsAsync({ app: withLedger, user: rootCaller });
    assert.ok(forRoot.ledger_list && forRoot.ledger_read && forRoot.todos_delete);
    // Without a user nothing is decided up front, so the sync form still works.
    assert.ok(getMCPTools({ app: withLedger }).ledger_list);
    // A read-scoped token sees only read-only tools (the scope part of the same rule).
    const readOnly = await getMCPToolsAsync({
      app: withLedger,
      user: { ...rootCaller, scopes: ["read"] },
    });
    assert.deepEqual(names(readOnly), [
      "foods_list",
      "foods_read",
      "ledger_list",
      "ledger_read",
      "todos_list",
      "todos_read",
    ]);
  });
});
