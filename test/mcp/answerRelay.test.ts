/**
 * The 2025 era's answer relay (issue #33, item 6): a POSTed elicitation answer is taken only
 * for a question this server asked, of this caller, still open; every POST spends the caller's
 * tool-call points, and answers are small. Unsolicited answers (made-up ids, large bodies) are
 * refused and nothing is stored; the genuine flow still works. The two-instance flow (the answer
 * heard by the other instance, through the relay) is in confirm.test.ts.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import mongoose from "mongoose";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { type Listening, listen } from "../helpers/mcpClients.js";
import {
  createTodo,
  initialize,
  postInSession,
  sseMessages,
  toolCallMessage,
} from "../helpers/mcpWire.js";
import { Todo, User } from "../helpers/models.js";
import { JWT_SECRET, todoOptions } from "../helpers/restApp.js";
import { serverLog } from "../helpers/serverLog.js";

useTestDatabase("mcp_answer_relay");

const POINTS = 20;

describe("the elicitation answer relay", () => {
  const base = todoOptions();
  const log = serverLog();
  const app = new TerrenoApp({
    userModel: User,
    auth: { jwt: { secret: JWT_SECRET } },
    rateLimit: { auth: false, writes: false, toolCalls: { points: POINTS, duration: 600 } },
    ...log.appOptions,
  })
    .register(modelRouter(Todo, { ...base, mcp: { ...base.mcp, confirm: ["delete"] } }))
    .build();
  let server: Listening;

  before(async () => {
    server = await listen(app);
  });
  after(() => server.close());

  const stored = () =>
    (mongoose.connection.db as NonNullable<typeof mongoose.connection.db>)
      .collection("mcp_elicitation_answers")
      .countDocuments({ response: { $exists: true } });

  const session = async (user: TestUser) =>
    (await initialize(app, user, { elicitation: {} })).headers["mcp-session-id"] as string;

  const post = (user: TestUser, sessionId: string, body: unknown, url = server.url) =>
    postInSession(url, user, sessionId, body);

  const answer = (id: string, pad = 0) => ({
    jsonrpc: "2.0",
    id,
    result: {
      action: "accept",
      content: { confirm: true, ...(pad ? { pad: "x".repeat(pad) } : {}) },
    },
  });

  test("100 unsolicited 95 KB answers store nothing and run into the caller's limit", {
    timeout: 60_000,
  }, async () => {
    const mallory = await signUp(app, "mallory");
    const sessionId = await session(mallory);
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) {
      const response = await post(mallory, sessionId, answer(`ask-${randomUUID()}`, 95_000));
      statuses.push(response.status);
      if (response.status === 202) continue;
      const body = (await response.json()) as { error?: { code: number }; id: unknown };
      assert.equal(body.id, null, "a refusal of a response has no id to answer");
      assert.equal(typeof body.error?.code, "number");
    }
    assert.equal(statuses.filter((status) => status === 202).length, 0, String(statuses));
    assert.deepEqual(statuses.slice(0, POINTS), Array(POINTS).fill(413));
    assert.deepEqual(statuses.slice(POINTS), Array(100 - POINTS).fill(429));
    assert.equal(await stored(), 0);
  });

  test("a small answer to a made-up question is refused, and stores nothing", async () => {
    const eve = await signUp(app, "eve");
    const sessionId = await session(eve);
    for (const id of [`ask-${randomUUID()}`, "made-up", 7]) {
      const response = await post(eve, sessionId, { ...answer("x"), id });
      assert.equal(response.status, 400, `id ${id}`);
      const body = (await response.json()) as { error: { code: number } };
      assert.equal(body.error.code, -32600);
    }
    assert.equal(await stored(), 0);
  });

  test("the genuine flow still runs, and its answer spends a point; the answer again is refused", async () => {
    const alice = await signUp(app, "alice");
    const sessionId = await session(alice);
    const id = await createTodo(app, alice, "relay delete");
    const call = await post(alice, sessionId, toolCallMessage(7, "todos_delete", { id }));
    assert.equal(call.status, 200);
    const next = sseMessages(call);
    const question = (await next()) as { id: string; method: string };
    assert.equal(question.method, "elicitation/create");
    // Too large an answer to an open question is refused too, and the question stays open.
    assert.equal((await post(alice, sessionId, answer(question.id, 20_000))).status, 413);
    assert.equal((await post(alice, sessionId, answer(question.id))).status, 202);
    const result = (await next()) as { id: number; result: { structuredContent?: unknown } };
    assert.equal(result.id, 7);
    assert.equal(await Todo.exists({ _id: id, deleted: { $ne: true } }), null);
    assert.equal((await post(alice, sessionId, answer(question.id))).status, 400);
    assert.equal(await stored(), 0);
  });

  test("on another instance, only the asked caller's answer is relayed, once", async () => {
    const log2 = serverLog();
    const base2 = todoOptions();
    const second = new TerrenoApp({
      userModel: User,
      auth: { jwt: { secret: JWT_SECRET } },
      ...log2.appOptions,
    })
      .register(modelRouter(Todo, { ...base2, mcp: { ...base2.mcp, confirm: ["delete"] } }))
      .build();
    const secondServer = await listen(second);
    try {
      const alice = await signUp(app, "alice");
      const bob = await signUp(app, "bob");
      const sessionId = await session(alice);
      const id = await createTodo(app, alice, "relayed delete");
      const call = await post(alice, sessionId, toolCallMessage(8, "todos_delete", { id }));
      const next = sseMessages(call);
      const question = (await next()) as { id: string };
      const toSecond = (user: TestUser, body: unknown) =>
        post(user, sessionId, body, secondServer.url);
      assert.equal((await toSecond(bob, answer(question.id))).status, 400);
      assert.equal(await stored(), 0);
      assert.equal((await toSecond(alice, answer(question.id))).status, 202);
      assert.equal((await toSecond(alice, answer(question.id))).status, 400);
      const result = (await next()) as { id: number };
      assert.equal(result.id, 8);
      assert.equal(await Todo.exists({ _id: id, deleted: { $ne: true } }), null);
      assert.deepEqual(log2.serverErrors(), []);
    } finally {
      await secondServer.close();
    }
  });

  test("no request above left a server fault in the log", () => {
    assert.deepEqual(log.serverErrors(), []);
  });
});
