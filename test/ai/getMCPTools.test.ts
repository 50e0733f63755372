import assert from "node:assert/strict";
import { before, describe, mock, test } from "node:test";
import { createMCPClient } from "@ai-sdk/mcp";
import {
  asSchema,
  generateText,
  isStepCount,
  type ModelMessage,
  simulateReadableStream,
  streamText,
  type ToolSet,
} from "ai";
import { MockLanguageModelV4 } from "ai/test";
import {
  getMCPTools,
  type MCPToolContext,
  mcpToolApproval,
  mcpToolsContext,
} from "../../src/ai/index.js";
import type { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { toUser } from "../../src/auth/userPlugin.js";
import type { User as Caller } from "../../src/core/types.js";
import { signedUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { connectClient, toolError, useListening } from "../helpers/mcpClients.js";
import { Todo, User } from "../helpers/models.js";
import { hookCalls, restTerreno, type todoOptions } from "../helpers/restApp.js";

useTestDatabase("ai_tools");

// ---- A scripted MockLanguageModelV4 -------------------------------------------------------

type CallOptions = Parameters<MockLanguageModelV4["doGenerate"]>[0];
type GenerateResult = Awaited<ReturnType<MockLanguageModelV4["doGenerate"]>>;
type StreamResult = Awaited<ReturnType<MockLanguageModelV4["doStream"]>>;
type Content = GenerateResult["content"];
type Prompt = CallOptions["prompt"];
/** One model turn: tool calls `[name, input]`, or a final text. */
type Turn = { calls: Array<[string, unknown]> } | { text: string };

const usage: GenerateResult["usage"] = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

let callCounter = 0;

function contentOf(turn: Turn): Content {
  if ("text" in turn) return [{ type: "text", text: turn.text }];
  return turn.calls.map(([toolName, input]) => ({
    type: "tool-call",
    toolCallId: `call-${++callCounter}`,
    toolName,
    // Models send JSON text; a raw string lets a test send arguments the schema rejects.
    input: typeof input === "string" ? input : JSON.stringify(input),
  }));
}

const finishOf = (turn: Turn): GenerateResult["finishReason"] =>
  "text" in turn ? { unified: "stop", raw: "stop" } : { unified: "tool-calls", raw: "tool_calls" };

/** The tool results the model was shown in its last prompt message, as the model sees them. */
function lastToolOutputs(prompt: Prompt): Array<{ type: string; value: unknown }> {
  const last = prompt.at(-1);
  if (last?.role !== "tool") return [];
  return last.content.flatMap((part) =>
    part.type === "tool-result" ? [part.output as { type: string; value: unknown }] : [],
  );
}

/** The script's steps in order, each run on the prompt the model received; one call too many fails. */
function inOrder(script: Array<(prompt: Prompt) => Turn>): (prompt: Prompt) => Turn {
  let step = 0;
  return (prompt) => {
    const next = script[step++];
    if (!next) throw new Error(`the model was called more often than scripted (${step})`);
    return next(prompt);
  };
}

/** A generating model: each call runs the next script step on the prompt it received. */
function generatingModel(script: Array<(prompt: Prompt) => Turn>): MockLanguageModelV4 {
  const turnFor = inOrder(script);
  return new MockLanguageModelV4({
    doGenerate: async (options: CallOptions): Promise<GenerateResult> => {
      const turn = turnFor(options.prompt);
      return { content: contentOf(turn), finishReason: finishOf(turn), usage, warnings: [] };
    },
  });
}

/** The same script as a streaming model (`simulateReadableStream` of V3 stream parts). */
function streamingModel(script: Array<(prompt: Prompt) => Turn>): MockLanguageModelV4 {
  const turnFor = inOrder(script);
  return new MockLanguageModelV4({
    doStream: async (options: CallOptions): Promise<StreamResult> => {
      const turn = turnFor(options.prompt);
      type Part = StreamResult["stream"] extends ReadableStream<infer P> ? P : never;
      const parts: Part[] = [{ type: "stream-start", warnings: [] }];
      if ("text" in turn) {
        parts.push(
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: turn.text },
          { type: "text-end", id: "t" },
        );
      } else {
        for (const part of contentOf(turn)) if (part.type === "tool-call") parts.push(part);
      }
      parts.push({ type: "finish", finishReason: finishOf(turn), usage });
      return { stream: simulateReadableStream({ chunks: parts }) };
    },
  });
}

// ---- App, users, helpers ------------------------------------------------------------------

function buildApp(overrides: Parameters<typeof todoOptions>[0] = {}): TerrenoApp {
  return restTerreno({}, overrides);
}

async function callerOf(user: TestUser): Promise<Caller> {
  const doc = await User.findById(user.userId);
  assert.ok(doc, "signed-up user exists");
  return toUser(doc);
}

const execOptions = (context: unknown = {}) => ({
  toolCallId: "direct",
  messages: [] as ModelMessage[],
  context: context as Record<string, unknown>,
});

/** Runs one tool directly, as the AI SDK would after validation. */
async function execute(tools: ToolSet, name: string, input: unknown, context?: unknown) {
  const run = tools[name]?.execute;
  assert.ok(run, `${name} has execute`);
  return (await run(input, execOptions(context))) as Record<string, unknown>;
}

const dataOf = (output: unknown) => (output as { data: Record<string, unknown> }).data;

// Permissions, hidden fields, filters, limits, validation, conflicts and internal errors are
// asserted once for every surface in test/contract (with getMCPTools executed directly and
// through generateText); this file keeps AI SDK specifics.
describe("getMCPTools", () => {
  const app = buildApp();
  const express = app.build();
  const server = useListening(express);
  const [alice, bob] = signedUp(express, "alice", "bob");
  let aliceUser: Caller;
  let bobUser: Caller;

  before(async () => {
    aliceUser = await callerOf(alice);
    bobUser = await callerOf(bob);
  });

  test("generateText: list → create → read (id from the create result) → text", async () => {
    const title = `ai loop ${Date.now()}`;
    let createdId = "";
    const model = generatingModel([
      () => ({ calls: [["todos_list", {}]] }),
      () => ({ calls: [["todos_create", { title, priority: 2 }]] }),
      (prompt) => {
        const [output] = lastToolOutputs(prompt);
        assert.equal(output?.type, "json");
        createdId = String(dataOf(output?.value).id);
        return { calls: [["todos_read", { id: createdId }]] };
      },
      (prompt) => {
        const [output] = lastToolOutputs(prompt);
        return { text: `Read back: ${String(dataOf(output?.value).title)}` };
      },
    ]);
    hookCalls.length = 0;
    const tools = getMCPTools({ app });
    const result = await generateText({
      model,
      // No `user` option: the caller arrives per call through each tool's context.
      tools,
      toolsContext: mcpToolsContext(tools, aliceUser),
      prompt: "Add a todo and read it back.",
      stopWhen: isStepCount(6),
    });

    assert.equal(result.steps.length, 4);
    assert.equal(result.text, `Read back: ${title}`);
    const [listed, created, read] = result.steps.map((step) => step.toolResults[0]);
    assert.equal(listed?.toolName, "todos_list");
    assert.ok(Array.isArray((listed?.output as { data?: unknown[] } | undefined)?.data));
    assert.equal(created?.toolName, "todos_create");
    assert.equal(dataOf(created?.output).title, title);
    // Populated by default, with hidden fields (passwordHash) stripped.
    assert.deepEqual(dataOf(created?.output).ownerId, { id: alice.userId, name: "alice" });
    assert.equal(read?.toolName, "todos_read");
    assert.deepEqual(
      { ...dataOf(read?.output), ownerId: undefined },
      { ...dataOf(created?.output), ownerId: undefined },
    );
    // The database holds exactly what the tools said, owned by the context's caller,
    // written through the same hooks REST runs (with transport "ai").
    const stored = await Todo.findById(createdId).lean<{ title: string; ownerId: unknown }>();
    assert.equal(stored?.title, title);
    assert.equal(String(stored?.ownerId), alice.userId);
    assert.deepEqual(hookCalls, ["preCreate:ai", "postCreate"]);
    // Hidden (excluded) fields never reach the model.
    assert.equal("internalNote" in dataOf(created?.output), false);
  });

  test("streamText: the same loop over a streaming model, caller bound with `user`", async () => {
    const title = `ai stream ${Date.now()}`;
    let createdId = "";
    const model = streamingModel([
      () => ({ calls: [["todos_list", { limit: 2 }]] }),
      () => ({ calls: [["todos_create", { title }]] }),
      (prompt) => {
        createdId = String(dataOf(lastToolOutputs(prompt)[0]?.value).id);
        return { calls: [["todos_read", { id: createdId }]] };
      },
      () => ({ text: "done" }),
    ]);
    const result = streamText({
      model,
      tools: getMCPTools({ app, user: aliceUser }),
      prompt: "Add a todo and read it back.",
      stopWhen: isStepCount(6),
    });
    let text = "";
    for await (const delta of result.textStream) text += delta;
    const steps = await result.steps;
    assert.equal(text, "done");
    assert.deepEqual(
      steps.map((step) => step.toolResults.map((r) => r.toolName)),
      [["todos_list"], ["todos_create"], ["todos_read"], []],
    );
    assert.equal(dataOf(steps[2]?.toolResults[0]?.output).id, createdId);
    assert.equal(dataOf(steps[2]?.toolResults[0]?.output).title, title);
    const stored = await Todo.findById(createdId).lean<{ ownerId: unknown }>();
    assert.equal(String(stored?.ownerId), alice.userId);
  });

  test("the model is offered exactly the MCP input schemas (as listed over HTTP)", async () => {
    const model = generatingModel([() => ({ text: "nothing to do" })]);
    const tools = getMCPTools({ app, user: aliceUser });
    await generateText({ model, tools, prompt: "hi" });
    const offered = model.doGenerateCalls[0]?.tools ?? [];
    const client = await connectClient("v2-auto", server.url, alice.token);
    const listed = await client.listTools();
    await client.close();

    assert.deepEqual(
      offered.map((t) => t.name),
      listed.map((t) => t.name),
    );
    for (const mcpTool of listed) {
      const sent = offered.find((t) => t.name === mcpTool.name);
      assert.ok(sent && sent.type === "function", mcpTool.name);
      assert.deepEqual(sent.inputSchema, mcpTool.inputSchema, mcpTool.name);
      assert.equal(sent.description, mcpTool.description);
      assert.equal(tools[mcpTool.name]?.title, mcpTool.title);
      assert.deepEqual(
        await asSchema(tools[mcpTool.name]?.outputSchema).jsonSchema,
        mcpTool.outputSchema,
      );
    }
    const create = offered.find((t) => t.name === "todos_create");
    assert.ok(create?.type === "function");
    const properties = (create.inputSchema as { properties?: Record<string, unknown> }).properties;
    assert.ok(properties && "title" in properties, "todos_create offers real arguments");
    assert.equal("internalNote" in properties, false);
    assert.equal("ownerId" in properties, false);
  });

  test("invalid arguments are refused once, by the pipeline; the model reads MCP's text", async () => {
    const before = await Todo.countDocuments();
    hookCalls.length = 0;
    let shown: { type: string; value: unknown } | undefined;
    const model = generatingModel([
      () => ({ calls: [["todos_create", { title: 123 }]] }),
      (prompt) => {
        shown = lastToolOutputs(prompt)[0];
        return { text: "sorry" };
      },
    ]);
    const result = await generateText({
      model,
      tools: getMCPTools({ app, user: aliceUser }),
      prompt: "Add a todo.",
      stopWhen: isStepCount(3),
    });

    assert.equal(await Todo.countDocuments(), before, "nothing written");
    assert.deepEqual(hookCalls, [], "refused before any hook ran");
    const [first] = result.steps;
    assert.equal(first?.toolCalls[0]?.toolName, "todos_create");
    const output = first?.toolResults[0]?.output as { error?: { code: string } } | undefined;
    assert.equal(output?.error?.code, "validation_failed");

    // MCP's own text for the same call, over HTTP, is exactly what the model read.
    const client = await connectClient("v2-auto", server.url, alice.token);
    const mcp = await client.callTool("todos_create", { title: 123 });
    await client.close();
    assert.equal(mcp.isError, true);
    const mcpText = mcp.content[0]?.text ?? "";
    assert.match(mcpText, /^validation_failed: Invalid input\. title: must be a string\.\n/);
    assert.equal(shown?.type, "error-text");
    assert.equal(String(shown?.value), mcpText);
    assert.deepEqual(toolError(mcp).fields, { title: "must be a string" });
  });

  test("a refusal is a result with MCP's body, shown to the model as MCP's error text", async () => {
    const missing = "0123456789abcdef01234567";
    let shown: { type: string; value: unknown } | undefined;
    const model = generatingModel([
      () => ({ calls: [["todos_read", { id: missing }]] }),
      (prompt) => {
        shown = lastToolOutputs(prompt)[0];
        return { text: "not there" };
      },
    ]);
    const tools = getMCPTools({ app });
    const result = await generateText({
      model,
      tools,
      // A bare User works too.
      toolsContext: Object.fromEntries(
        Object.keys(tools).map((name) => [name, bobUser as unknown as MCPToolContext]),
      ),
      prompt: "Read that todo.",
      stopWhen: isStepCount(3),
    });
    const output = result.steps[0]?.toolResults[0]?.output as { error: Record<string, unknown> };
    assert.equal(output.error.code, "not_found");

    const client = await connectClient("v2-auto", server.url, bob.token);
    const mcp = await client.callTool("todos_read", { id: missing });
    await client.close();
    assert.equal(mcp.isError, true);
    assert.deepEqual(toolError(mcp), output.error);
    // The model reads MCP's text as an error result (providers flag it as a tool error).
    assert.deepEqual(shown, { type: "error-text", value: mcp.content[0]?.text });
  });

  test("the caller: `user`, then the tool context (User or {user}), else anonymous", async () => {
    const tools = getMCPTools({ app });
    const anonymous = await execute(tools, "todos_list", {});
    assert.equal((anonymous.error as { code: string }).code, "unauthenticated");
    assert.equal(
      (anonymous.error as { detail: string }).detail,
      "Authentication is required for this request.",
    );
    for (const context of [aliceUser, { user: aliceUser }, { user: aliceUser, id: 7 }]) {
      const listed = await execute(tools, "todos_list", {}, context);
      assert.ok(Array.isArray(listed.data), JSON.stringify(listed));
    }
    for (const context of [{ user: undefined }, { id: 42 }, "alice", null]) {
      const refused = await execute(tools, "todos_list", {}, context);
      assert.equal((refused.error as { code: string }).code, "unauthenticated");
    }
    // A bound `user` wins over the context.
    const bound = getMCPTools({ app, user: bobUser });
    const mine = dataOf(await execute(bound, "todos_create", { title: "bob's" }, aliceUser));
    assert.equal((mine.ownerId as { id: string }).id, bob.userId);
  });

  test("internal errors: a fixed `internal` result, the cause only in the log", async () => {
    const broken = buildApp({
      preCreate: () => {
        throw new Error("secret connection string mongodb://admin:hunter2@db");
      },
    });
    const logged = mock.method(console, "error", () => {});
    try {
      const output = await execute(getMCPTools({ app: broken, user: aliceUser }), "todos_create", {
        title: "boom",
      });
      assert.deepEqual(output, {
        error: {
          status: 500,
          title: "Internal Server Error",
          detail: "An unexpected error occurred.",
          code: "internal",
        },
      });
      assert.equal(logged.mock.callCount(), 1);
      const [message, logged0] = logged.mock.calls[0]?.arguments ?? [];
      assert.match(String(message), /todos_create failed \(internal\)/);
      assert.match(String((logged0 as { err: Error }).err.message), /hunter2/);
    } finally {
      logged.mock.restore();
    }
  });

  test("requireApproval: needsApproval on create/update/delete only; approval gates execute", async () => {
    const plain = getMCPTools({ app, user: aliceUser });
    const gated = getMCPTools({ app, user: aliceUser, requireApproval: true });
    const needs = (tools: ToolSet) =>
      Object.fromEntries(Object.entries(tools).map(([name, t]) => [name, t.needsApproval]));
    assert.deepEqual(needs(plain), {
      foods_list: undefined,
      foods_read: undefined,
      todos_create: undefined,
      todos_delete: undefined,
      todos_list: undefined,
      todos_read: undefined,
      todos_update: undefined,
    });
    assert.deepEqual(needs(gated), {
      foods_list: undefined,
      foods_read: undefined,
      todos_create: true,
      todos_delete: true,
      todos_list: undefined,
      todos_read: undefined,
      todos_update: true,
    });

    // A call that needs approval is not executed; the step ends with a
    // tool-approval-request and the loop stops until the app answers it.
    const title = `approve me ${Date.now()}`;
    const first = await generateText({
      model: generatingModel([() => ({ calls: [["todos_create", { title }]] })]),
      tools: gated,
      prompt: "Add a todo.",
      stopWhen: isStepCount(5),
    });
    assert.equal(first.steps.length, 1);
    const request = first.content.find((part) => part.type === "tool-approval-request");
    assert.ok(request, "approval requested");
    assert.deepEqual(first.toolResults, []);
    assert.equal(await Todo.countDocuments({ title }), 0, "nothing written before approval");

    // Approving it (a tool message answering the request) runs the tool, then the model.
    const resumed = await generateText({
      model: generatingModel([() => ({ text: "created" })]),
      tools: gated,
      messages: [
        { role: "user", content: "Add a todo." },
        ...first.responseMessages,
        {
          role: "tool",
          content: [
            { type: "tool-approval-response", approvalId: request.approvalId, approved: true },
          ],
        },
      ],
      stopWhen: isStepCount(5),
    });
    assert.equal(resumed.text, "created");
    assert.equal(await Todo.countDocuments({ title }), 1, "written after approval");

    // The approved call's input comes back from (client-held) history. The AI SDK re-validates it
    // against the input schema (our ajv validator) before executing: a tampered input is a
    // tool error the model reads, and nothing is written.
    const history = structuredClone(first.responseMessages);
    for (const message of history) {
      if (message.role !== "assistant" || typeof message.content === "string") continue;
      for (const part of message.content) {
        if (part.type === "tool-call") part.input = { title: 123 };
      }
    }
    const count = await Todo.countDocuments();
    const tampered = await generateText({
      model: generatingModel([() => ({ text: "ok" })]),
      tools: gated,
      messages: [
        { role: "user", content: "Add a todo." },
        ...history,
        {
          role: "tool",
          content: [
            { type: "tool-approval-response", approvalId: request.approvalId, approved: true },
          ],
        },
      ],
      stopWhen: isStepCount(5),
    });
    const toolMessage = tampered.responseMessages.find((m) => m.role === "tool");
    const part = toolMessage?.role === "tool" ? toolMessage.content[0] : undefined;
    assert.ok(part?.type === "tool-result" && part.output.type === "error-text");
    assert.match(part.output.value, /^validation_failed: Invalid input\. /);
    assert.equal(await Todo.countDocuments(), count);
  });

  test("mcpToolApproval: AI SDK 7's call-level toolApproval gates the writes, reads run", async () => {
    const tools = getMCPTools({ app, user: aliceUser });
    assert.deepEqual(mcpToolApproval(tools), {
      todos_create: "user-approval",
      todos_delete: "user-approval",
      todos_update: "user-approval",
    });
    const title = `policy ${Date.now()}`;
    const first = await generateText({
      model: generatingModel([
        () => ({ calls: [["todos_create", { title }]] }),
        () => ({ text: "unreachable" }),
      ]),
      tools,
      toolApproval: mcpToolApproval(tools),
      prompt: "Add a todo.",
      stopWhen: isStepCount(5),
    });
    const request = first.content.find((part) => part.type === "tool-approval-request");
    assert.ok(request, "the create waits for approval");
    assert.equal(first.steps.length, 1);
    assert.equal(await Todo.countDocuments({ title }), 0, "nothing written before approval");

    // A read is not gated: it runs and the loop goes on.
    const read = await generateText({
      model: generatingModel([() => ({ calls: [["todos_list", {}]] }), () => ({ text: "listed" })]),
      tools,
      toolApproval: mcpToolApproval(tools),
      prompt: "List.",
      stopWhen: isStepCount(5),
    });
    assert.equal(read.text, "listed");
    assert.ok(!read.content.some((part) => part.type === "tool-approval-request"));
  });

  test("execute validates: a direct call with bad input is refused and writes nothing", async () => {
    const tools = getMCPTools({ app, user: aliceUser });
    const count = await Todo.countDocuments();
    const output = await execute(tools, "todos_create", { title: 123, ownerId: bob.userId });
    assert.deepEqual(output, {
      error: {
        status: 400,
        title: "Validation Failed",
        detail: "Invalid input.",
        code: "validation_failed",
        fields: { ownerId: "is not an allowed field", title: "must be a string" },
      },
    });
    assert.equal(await Todo.countDocuments(), count);
  });

  test("execute refuses NUL and lone surrogates, naming the field, and writes nothing", async () => {
    const tools = getMCPTools({ app, user: aliceUser });
    const count = await Todo.countDocuments();
    for (const [value, reason] of [
      ["a\u0000b", /NUL/],
      ["a\ud800b", /surrogate/],
    ] as const) {
      const output = (await execute(tools, "todos_create", { title: value })) as {
        error?: { code?: string; fields?: Record<string, string> };
      };
      assert.equal(output.error?.code, "validation_failed");
      assert.match(String(output.error?.fields?.title), reason);
    }
    assert.equal(await Todo.countDocuments(), count);
  });

  test("include filters by model, method and tool name; unknown names fail loudly", () => {
    const names = (tools: ToolSet) => Object.keys(tools).sort();
    assert.deepEqual(names(getMCPTools({ app, include: { models: ["Food"] } })), [
      "foods_list",
      "foods_read",
    ]);
    assert.deepEqual(names(getMCPTools({ app, include: { methods: ["list"] } })), [
      "foods_list",
      "todos_list",
    ]);
    assert.deepEqual(names(getMCPTools({ app, include: { tools: ["todos_read"] } })), [
      "todos_read",
    ]);
    assert.deepEqual(
      names(getMCPTools({ app, include: { models: ["Todo"], methods: ["create", "delete"] } })),
      ["todos_create", "todos_delete"],
    );
    assert.deepEqual(names(getMCPTools({ app, include: { models: [] } })), []);
    assert.deepEqual(
      names(getMCPTools({ tools: app.toolDefinitions.filter((d) => d.method === "read") })),
      ["foods_read", "todos_read"],
    );
    assert.throws(
      () => getMCPTools({ app, include: { models: ["Todos"] } }),
      /unknown models Todos/,
    );
    assert.throws(
      () => getMCPTools({ app, include: { tools: ["todo_list"] } }),
      /unknown tools todo_list/,
    );
  });

  test("@ai-sdk/mcp over /mcp sees the same tool names and input schemas", async () => {
    const client = await createMCPClient({
      transport: {
        type: "http",
        url: new URL("/mcp", server.url).href,
        headers: { Authorization: `Bearer ${alice.token}` },
      },
    });
    try {
      const remote = await client.tools();
      const local = getMCPTools({ app, user: aliceUser });
      assert.deepEqual(Object.keys(remote).sort(), Object.keys(local).sort());
      for (const [name, localTool] of Object.entries(local)) {
        const remoteTool = remote[name];
        assert.ok(remoteTool);
        assert.deepEqual(
          await asSchema(remoteTool.inputSchema).jsonSchema,
          await asSchema(localTool.inputSchema).jsonSchema,
          name,
        );
        assert.equal(remoteTool.description, localTool.description);
        assert.equal(remoteTool.title, localTool.title);
      }
      // Same data through both: the remote result's structuredContent is our output.
      const viaHttp = (await remoteTool(remote, "todos_list", { limit: 3 })) as {
        structuredContent?: unknown;
      };
      const inProcess = await execute(local, "todos_list", { limit: 3 });
      assert.deepEqual(viaHttp.structuredContent, inProcess);
    } finally {
      await client.close();
    }
  });

  test("built once: context-bound tools are shared; a user-bound tool reuses the schema", () => {
    const a = getMCPTools({ app });
    const b = getMCPTools({ app, include: { methods: ["read"] } });
    assert.equal(a.todos_read, b.todos_read, "same tool object across calls");
    assert.notEqual(a.todos_create, getMCPTools({ app, requireApproval: true }).todos_create);
    const bound = getMCPTools({ app, user: aliceUser });
    assert.notEqual(bound.todos_read, a.todos_read);
    assert.equal(bound.todos_read?.inputSchema, a.todos_read?.inputSchema, "schema reused");
  });
});

/** Runs a tool from an @ai-sdk/mcp client directly. */
async function remoteTool(tools: ToolSet, name: string, input: unknown): Promise<unknown> {
  const run = tools[name]?.execute;
  assert.ok(run, `${name} has execute`);
  return run(input, execOptions());
}
