/**
 * Durable turns with the Redis buffer (`chatPlugin({streamBuffer: {redis}})`, issue 23.3): two
 * app instances on one database and one Redis (a real server, miniredis, over TCP); a turn
 * streamed on A is reattached from B with every chunk in order and the end. With Redis down, the
 * reply still streams to its sender and is stored in MongoDB; a reattach answers 503 with its
 * own code instead of a 500 or a hang, and the turn still closes.
 */
import assert from "node:assert/strict";
import type { Server } from "node:http";
import { after, before, describe, test } from "node:test";
import { Redis } from "ioredis";
import {
  ChatStreamChunk,
  Conversation,
  type RedisStreamBufferClient,
} from "../../src/chat/index.js";
import type { PlainObject } from "../../src/core/types.js";
import { signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { type MiniredisServer, startMiniredis } from "../helpers/miniredis.js";
import {
  assistantMessage,
  buildChatApp,
  scriptedModel,
  turnsEnded,
  userMessage,
  waitFor,
} from "./helpers.js";
import { FULL, listen, readChunks, readThenLeave, slowModel, textOf } from "./turnHelpers.js";

useTestDatabase("chat_turns_redis");

const PREFIX = "test:chat:stream:";
const TTL_SECONDS = 120;

describe("durable chat turns on a Redis buffer", () => {
  let ada: TestUser;
  let redis: MiniredisServer;
  const clients: Redis[] = [];
  const servers: Server[] = [];

  before(async () => {
    redis = await startMiniredis();
    ada = await signUp(buildChatApp({ model: scriptedModel() }), "ada");
  });
  after(async () => {
    await turnsEnded(10_000);
    for (const server of servers) server.close();
    for (const client of clients) client.disconnect();
    await redis.stop();
  });

  function client(port: number): Redis {
    const made = new Redis({ host: "127.0.0.1", port });
    // A server that goes away is reported here (and reconnected to), not thrown.
    made.on("error", () => {});
    clients.push(made);
    return made;
  }

  /** Two instances (each its own plugin and Redis connection) on one database and one Redis. */
  async function twoInstances(
    model: Parameters<typeof buildChatApp>[0]["model"],
    port: number,
    timeoutMs?: number,
  ) {
    // An ioredis client is the option's type as it is: no cast, no wrapper.
    const buffer = (redisClient: RedisStreamBufferClient) => ({
      redis: redisClient,
      keyPrefix: PREFIX,
      ttlSeconds: TTL_SECONDS,
      ...(timeoutMs ? { timeoutMs } : {}),
    });
    const a = await listen(
      buildChatApp({ model, approval: "none", streamBuffer: buffer(client(port)) }),
    );
    const b = await listen(
      buildChatApp({
        model: scriptedModel(),
        approval: "none",
        streamBuffer: buffer(client(port)),
      }),
    );
    servers.push(a.server, b.server);
    return { a: a.url, b: b.url };
  }

  const headers = () => ({ authorization: `Bearer ${ada.token}` });
  const send = (url: string, body: unknown, signal?: AbortSignal) =>
    fetch(`${url}/chat`, {
      method: "POST",
      headers: { ...headers(), "content-type": "application/json" },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
  const activeStreamId = async (conversationId: string) =>
    waitFor(async () => {
      const row = await Conversation.findById(conversationId).lean<PlainObject>();
      return typeof row?.activeStreamId === "string" ? row.activeStreamId : undefined;
    }, 5000);

  test("a turn streamed on A is reattached from B: every chunk, in order, then the end", async () => {
    const { model, state } = slowModel(20, 10);
    const { a, b } = await twoInstances(model, redis.port);
    const hangUp = new AbortController();
    const first = await send(a, { messages: [userMessage("tell me", "u-redis")] }, hangUp.signal);
    // The client reads a few words, then goes away (a reload).
    const { conversationId, messageId } = await readThenLeave(first, hangUp);
    const streamId = await activeStreamId(conversationId);

    // The model holds after ten words; B reattaches mid-reply, then the model goes on.
    const resumed = await fetch(`${b}/chat/${conversationId}/stream`, { headers: headers() });
    assert.equal(resumed.status, 200);
    state.release();
    const replay = await readChunks(resumed);
    assert.equal(replay[0]?.type, "start");
    assert.equal(replay[0]?.messageId, messageId);
    assert.equal(textOf(replay), FULL);
    assert.equal(replay.at(-1)?.type, "finish");

    // What B replayed is exactly the buffer in Redis: rows 0..n-1, chunks in order, the end last.
    const inspect = client(redis.port);
    // A turn's key names its conversation's owner and its stream (issue 33.8).
    const key = `${PREFIX}${ada.userId}:${streamId}`;
    const rows = (await inspect.lrange(key, 0, -1)).map(
      (entry) => JSON.parse(entry) as PlainObject,
    );
    assert.deepEqual(
      rows.map((row) => row.seq),
      rows.map((_, index) => index),
    );
    assert.equal(rows.at(-1)?.end, true);
    assert.deepEqual(
      rows.slice(0, -1).map((row) => JSON.parse(String(row.chunkJson))),
      replay,
    );
    // The key expires on its own, and MongoDB held no chunk of this turn.
    const ttl = await inspect.pttl(key);
    assert.ok(ttl > 0 && ttl <= TTL_SECONDS * 1000, `expiry set (${ttl} ms)`);
    assert.equal(await ChatStreamChunk.countDocuments({ conversationId }), 0);

    const done = await assistantMessage(conversationId, (parts) =>
      parts.some((part) => part.text === FULL),
    );
    assert.equal(done.status, "done");
    await waitFor(async () => {
      const row = await Conversation.findById(conversationId).lean<PlainObject>();
      return row && row.activeStreamId === undefined;
    }, 5000);
    const none = await fetch(`${b}/chat/${conversationId}/stream`, { headers: headers() });
    assert.equal(none.status, 204);
  });

  test("a streamBuffer that cannot work is refused when the plugin is made, naming the option", () => {
    const made = client(redis.port);
    assert.throws(
      () => buildChatApp({ model: scriptedModel(), streamBuffer: { redis: {} as Redis } }),
      /streamBuffer\.redis.*rpush, lrange and pexpire/,
    );
    assert.throws(
      () => buildChatApp({ model: scriptedModel(), streamBuffer: { redis: made, ttlSeconds: 5 } }),
      /streamBuffer\.ttlSeconds.*at least 60/,
    );
  });

  test("Redis down: the sender gets the whole reply, it is stored, and a reattach gets a 503", async () => {
    const doomed = await startMiniredis();
    const { model, state } = slowModel(5, 5);
    const { a, b } = await twoInstances(model, doomed.port, 300);
    await doomed.stop();

    const first = await send(a, { messages: [userMessage("tell me", "u-redis-down")] });
    assert.equal(first.status, 200);
    const conversationId = String(first.headers.get("x-conversation-id"));
    const reading = readChunks(first);
    await activeStreamId(conversationId);

    // Mid-reply (the model holds), B cannot read the buffer: a clear 503, not a 500 or a hang.
    const resumed = await fetch(`${b}/chat/${conversationId}/stream`, { headers: headers() });
    assert.equal(resumed.status, 503);
    assert.ok(resumed.headers.get("retry-after"));
    const problem = (await resumed.json()) as PlainObject;
    assert.equal(problem.code, "stream_buffer_unavailable");
    assert.match(String(problem.detail), /stored/);

    state.release();
    const chunks = await reading;
    assert.equal(textOf(chunks), FULL, "the sender's reply is whole");
    assert.equal(chunks.at(-1)?.type, "finish");
    const stored = await assistantMessage(conversationId, (parts) =>
      parts.some((part) => part.text === FULL),
    );
    assert.equal(stored.status, "done");
    // The turn closes although its buffer could not be written; nothing is left streaming.
    await waitFor(async () => {
      const row = await Conversation.findById(conversationId).lean<PlainObject>();
      return row && row.activeStreamId === undefined;
    }, 10_000);
    const none = await fetch(`${b}/chat/${conversationId}/stream`, { headers: headers() });
    assert.equal(none.status, 204);
  });

  test("Redis lost mid-replay: the reattached reader gets an error chunk saying the reply is stored", async () => {
    const flaky = await startMiniredis();
    const { model, state } = slowModel(5, 5);
    const { a, b } = await twoInstances(model, flaky.port, 300);
    const first = await send(a, { messages: [userMessage("tell me", "u-redis-lost")] });
    const conversationId = String(first.headers.get("x-conversation-id"));
    const reading = readChunks(first);
    await activeStreamId(conversationId);

    // B follows the turn; once it has read the held model's words, Redis goes away.
    const resumed = await fetch(`${b}/chat/${conversationId}/stream`, { headers: headers() });
    assert.equal(resumed.status, 200);
    let words = 0;
    const replay = await readChunks(resumed, (chunk) => {
      if (chunk.type === "text-delta" && ++words === 5) void flaky.stop();
      return false;
    });
    const last = replay.at(-1);
    assert.equal(last?.type, "error");
    assert.match(String(last?.errorText), /stored/);

    state.release();
    assert.equal(textOf(await reading), FULL, "the sender's reply is whole");
    const stored = await assistantMessage(conversationId, (parts) =>
      parts.some((part) => part.text === FULL),
    );
    assert.equal(stored.status, "done");
  });
});
