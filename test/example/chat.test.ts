/** POST /chat: the caller's own tools in a streamed tool loop, with a mock model. */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test";
import request from "supertest";
import { createExampleApp } from "../../example-backend/app.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { type Listening, listen } from "../helpers/mcpClients.js";
import { EXAMPLE_TOOLS } from "../interop/clientChecks.js";

useTestDatabase("example_chat");

const SECRET = "example-chat-test-secret-long-enough";
const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

function stream(parts: LanguageModelV3StreamPart[]) {
  return {
    stream: convertArrayToReadableStream<LanguageModelV3StreamPart>([
      { type: "stream-start", warnings: [] },
      ...parts,
    ]),
  };
}

/** A model that calls todos_list, then answers in two text deltas. */
function toolThenTextModel() {
  return new MockLanguageModelV3({
    doStream: [
      stream([
        { type: "tool-call", toolCallId: "call-1", toolName: "todos_list", input: "{}" },
        {
          type: "finish",
          finishReason: { unified: "tool-calls", raw: "tool_calls" },
          usage: USAGE,
        },
      ]),
      stream([
        { type: "text-start", id: "t1" },
        { type: "text-delta", id: "t1", delta: "You have one todo: " },
        { type: "text-delta", id: "t1", delta: "Buy milk." },
        { type: "text-end", id: "t1" },
        { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: USAGE },
      ]),
    ],
  });
}

describe("example chat route", () => {
  let ada: TestUser;
  let bob: TestUser;
  const setup = createExampleApp({ jwtSecret: SECRET, env: {} }).build();

  before(async () => {
    ada = await signUp(setup, "ada");
    bob = await signUp(setup, "bob");
    const created = await request(setup).post("/todos").set(bearer(ada)).send({
      title: "Buy milk",
      internalNote: "secret note",
    });
    assert.equal(created.status, 201);
    await request(setup).post("/todos").set(bearer(bob)).send({ title: "Bob's todo" });
  });

  describe("with a mock model", () => {
    let server: Listening;
    let model: MockLanguageModelV3;
    before(async () => {
      model = toolThenTextModel();
      server = await listen(createExampleApp({ jwtSecret: SECRET, model, env: {} }).build());
    });
    after(() => server.close());

    test("runs todos_list as the caller, then streams the text", async () => {
      const response = await fetch(`${server.url}/chat`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...bearer(ada) },
        body: JSON.stringify({ messages: [{ role: "user", content: "What are my todos?" }] }),
      });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("content-type"), "text/plain; charset=utf-8");
      assert.equal(await response.text(), "You have one todo: Buy milk.");

      assert.equal(model.doStreamCalls.length, 2);
      const offered = (model.doStreamCalls[0].tools ?? []).map((tool) => tool.name).sort();
      assert.deepEqual(offered, [...EXAMPLE_TOOLS]);
      // The second model call saw the tool result: Ada's todo, not Bob's, and no internalNote.
      const toolMessage = model.doStreamCalls[1].prompt.find((m) => m.role === "tool");
      const seen = JSON.stringify(toolMessage);
      assert.match(seen, /Buy milk/);
      assert.doesNotMatch(seen, /Bob's todo/);
      assert.doesNotMatch(seen, /internalNote|secret note/);
    });
  });

  test("a model failure before any text is a 502 JSON error", async () => {
    const failing = new MockLanguageModelV3({
      doStream: async () => {
        throw new Error("upstream said no");
      },
    });
    const quiet = console.error;
    console.error = () => {};
    try {
      const app = createExampleApp({ jwtSecret: SECRET, model: failing, env: {} }).build();
      const res = await request(app).post("/chat").set(bearer(ada)).send({ prompt: "Hi" });
      assert.equal(res.status, 502);
      assert.equal(res.body.code, "llm_failed");
      assert.doesNotMatch(JSON.stringify(res.body), /upstream said no/);
    } finally {
      console.error = quiet;
    }
  });

  test("a model failure mid-stream ends the text with a notice", async () => {
    const failing = new MockLanguageModelV3({
      doStream: [
        stream([
          { type: "text-start", id: "t1" },
          { type: "text-delta", id: "t1", delta: "Let me check" },
          { type: "error", error: new Error("connection reset") },
        ]),
      ],
    });
    const quiet = console.error;
    console.error = () => {};
    try {
      const app = createExampleApp({ jwtSecret: SECRET, model: failing, env: {} }).build();
      const res = await request(app).post("/chat").set(bearer(ada)).send({ prompt: "Hi" });
      assert.equal(res.status, 200);
      assert.match(res.text, /^Let me check\n\n\[The assistant stopped: /);
      assert.doesNotMatch(res.text, /connection reset/);
    } finally {
      console.error = quiet;
    }
  });

  test("401 JSON without a token", async () => {
    const app = createExampleApp({ jwtSecret: SECRET, model: toolThenTextModel(), env: {} });
    const res = await request(app.build()).post("/chat").send({ prompt: "Hi" });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, "unauthenticated");
    assert.equal(res.body.title, "Unauthenticated");
    assert.match(res.headers["www-authenticate"], /^Bearer/);
  });

  test("503 JSON with set-up instructions when no model is configured", async () => {
    const res = await request(setup).post("/chat").set(bearer(ada)).send({ prompt: "Hi" });
    assert.equal(res.status, 503);
    assert.deepEqual(Object.keys(res.body).sort(), ["code", "detail", "status", "title"]);
    assert.equal(res.body.status, 503);
    assert.equal(res.body.code, "llm_not_configured");
    assert.match(res.body.detail, /LLM_BASE_URL/);
    assert.match(res.body.detail, /LLM_MODEL/);
    assert.match(res.body.detail, /LLM_API_KEY/);
  });

  test("the model comes from LLM_* variables: any OpenAI-compatible endpoint", async () => {
    // A stand-in OpenAI-compatible API that streams one chat completion.
    const seen: Array<{ path: string; auth?: string; body: Record<string, unknown> }> = [];
    const fake = http.createServer((req, res) => {
      let raw = "";
      req.on("data", (chunk) => {
        raw += chunk;
      });
      req.on("end", () => {
        seen.push({ path: req.url ?? "", auth: req.headers.authorization, body: JSON.parse(raw) });
        res.writeHead(200, { "Content-Type": "text/event-stream" });
        const chunk = (delta: object, finish: string | null) =>
          `data: ${JSON.stringify({
            id: "c1",
            object: "chat.completion.chunk",
            created: 1,
            model: "test-model",
            choices: [{ index: 0, delta, finish_reason: finish }],
          })}\n\n`;
        res.write(chunk({ role: "assistant", content: "Hello from " }, null));
        res.write(chunk({ content: "the endpoint." }, null));
        res.write(chunk({}, "stop"));
        res.end("data: [DONE]\n\n");
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
    const llmUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
    try {
      const app = createExampleApp({
        jwtSecret: SECRET,
        env: { LLM_BASE_URL: `${llmUrl}/v1`, LLM_MODEL: "test-model", LLM_API_KEY: "sk-test" },
      }).build();
      const res = await request(app).post("/chat").set(bearer(ada)).send({ prompt: "Hi" });
      assert.equal(res.status, 200);
      assert.equal(res.text, "Hello from the endpoint.");
      assert.equal(seen.length, 1);
      assert.equal(seen[0].path, "/v1/chat/completions");
      assert.equal(seen[0].auth, "Bearer sk-test");
      assert.equal(seen[0].body.model, "test-model");
      assert.equal(seen[0].body.stream, true);
      const tools = (seen[0].body.tools as Array<{ function: { name: string } }>).map(
        (tool) => tool.function.name,
      );
      assert.ok(tools.includes("todos_list"));
    } finally {
      fake.closeAllConnections();
      await new Promise((resolve) => fake.close(resolve));
    }
  });

  describe("400 JSON on a bad body", () => {
    const app = createExampleApp({ jwtSecret: SECRET, model: toolThenTextModel(), env: {} });
    const express = app.build();
    const cases: Array<[string, unknown, string]> = [
      ["no prompt or messages", {}, "(root)"],
      ["both prompt and messages", { prompt: "a", messages: [] }, "(root)"],
      ["an empty prompt", { prompt: " " }, "prompt"],
      ["a non-string prompt", { prompt: 42 }, "prompt"],
      ["an empty messages array", { messages: [] }, "messages"],
      ["a system message", { messages: [{ role: "system", content: "x" }] }, "messages.0.role"],
      ["a message without content", { messages: [{ role: "user" }] }, "messages.0.content"],
      ["an extra field", { prompt: "hi", model: "gpt" }, "model"],
      [
        "a last message that is not the user's",
        {
          messages: [
            { role: "user", content: "hi" },
            { role: "assistant", content: "hello" },
          ],
        },
        "messages.1.role",
      ],
      ["an array body", [{ prompt: "hi" }], "(root)"],
    ];
    for (const [name, body, field] of cases) {
      test(name, async () => {
        const res = await request(express)
          .post("/chat")
          .set(bearer(ada))
          .send(body as object);
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.code, "validation_failed");
        assert.ok(res.body.fields?.[field], `${field} in ${JSON.stringify(res.body.fields)}`);
      });
    }

    test("malformed JSON", async () => {
      const res = await request(express)
        .post("/chat")
        .set(bearer(ada))
        .set("Content-Type", "application/json")
        .send("{not json");
      assert.equal(res.status, 400);
      assert.equal(res.body.code, "validation_failed");
    });
  });
});
