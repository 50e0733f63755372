/**
 * A conversation's server-owned fields and its streams belong to its owner (issue 33.8):
 * - `POST /chat/conversations` stored a client's `activeStreamId` and `stopStreamId`; they, and
 *   every other field the server sets, are refused with a 400 naming the field, on POST and PATCH;
 * - a turn's buffer (the resume replay) and Stop were found by stream id alone, so another user
 *   whose conversation pointed at that id read the reply and stopped the turn. They are keyed by
 *   the conversation's owner as well: user B, knowing user A's stream id, gets neither.
 * Over real HTTP, on the MongoDB buffer and on the Redis one.
 */
import assert from "node:assert/strict";
import type { Server } from "node:http";
import { after, before, describe, test } from "node:test";
import { Redis } from "ioredis";
import request from "supertest";
import { ChatMessage, Conversation } from "../../src/chat/index.js";
import type { PlainObject } from "../../src/core/types.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { type MiniredisServer, startMiniredis } from "../helpers/miniredis.js";
import { serverLog } from "../helpers/serverLog.js";
import { buildChatApp, scriptedModel, turnsEnded, userMessage, waitFor } from "./helpers.js";
import { FULL, listen, readChunks, slowModel, textOf } from "./turnHelpers.js";

useTestDatabase("chat_conversation_fields");

describe("conversation fields and streams belong to the owner", () => {
  let ada: TestUser;
  let bob: TestUser;
  let redis: MiniredisServer;
  const servers: Server[] = [];
  const clients: Redis[] = [];

  before(async () => {
    const app = buildChatApp({ model: scriptedModel() });
    ada = await signUp(app, "ada");
    bob = await signUp(app, "bob");
    redis = await startMiniredis();
  });
  after(async () => {
    await turnsEnded(10_000);
    for (const server of servers) server.close();
    for (const client of clients) client.disconnect();
    await redis.stop();
  });

  test("server-owned fields are refused on POST and PATCH with a 400 naming the field", async () => {
    const log = serverLog();
    const app = buildChatApp({ model: scriptedModel() }, log.appOptions);
    const serverOwned: PlainObject = {
      activeStreamId: "3f7c1e9a-0000-4000-8000-000000000000",
      stopStreamId: "3f7c1e9a-0000-4000-8000-000000000000",
      ownerId: bob.userId,
      clientId: "someone-elses-chat",
      createdAt: "2020-01-01T00:00:00.000Z",
      updatedAt: "2020-01-01T00:00:00.000Z",
    };
    for (const [field, value] of Object.entries(serverOwned)) {
      const created = await request(app)
        .post("/chat/conversations")
        .set(bearer(ada))
        .send({ title: "mine", [field]: value });
      assert.equal(created.status, 400, `POST ${field}: ${JSON.stringify(created.body)}`);
      assert.equal(created.body.code, "validation_failed");
      assert.ok(field in (created.body.fields ?? {}), `POST names ${field}: ${created.text}`);
    }
    assert.equal(await Conversation.countDocuments({ ownerId: ada.userId }), 0, "none stored");

    const made = await request(app)
      .post("/chat/conversations")
      .set(bearer(ada))
      .send({ title: "mine" });
    assert.equal(made.status, 201, made.text);
    const id = made.body.data.id;
    for (const [field, value] of Object.entries(serverOwned)) {
      const patched = await request(app)
        .patch(`/chat/conversations/${id}`)
        .set(bearer(ada))
        .send({ [field]: value });
      assert.equal(patched.status, 400, `PATCH ${field}: ${JSON.stringify(patched.body)}`);
      assert.ok(field in (patched.body.fields ?? {}), `PATCH names ${field}: ${patched.text}`);
    }
    const stored = await Conversation.findById(id).lean<PlainObject>();
    assert.equal(stored?.activeStreamId, undefined);
    assert.equal(stored?.stopStreamId, undefined);
    assert.equal(String(stored?.ownerId), ada.userId);
    const renamed = await request(app)
      .patch(`/chat/conversations/${id}`)
      .set(bearer(ada))
      .send({ title: "renamed" });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual(log.serverErrors(), []);
  });

  for (const buffer of ["mongo", "redis"] as const) {
    test(`${buffer} buffer: user B, knowing A's stream id, cannot replay A's reply or stop A's turn`, async () => {
      const { model, state } = slowModel(10, 5);
      let streamBuffer: Parameters<typeof buildChatApp>[0]["streamBuffer"] = "mongo";
      if (buffer === "redis") {
        const client = new Redis({ host: "127.0.0.1", port: redis.port });
        client.on("error", () => {});
        clients.push(client);
        streamBuffer = { redis: client, keyPrefix: "test:owner:" };
      }
      const { server, url } = await listen(buildChatApp({ model, approval: "none", streamBuffer }));
      servers.push(server);
      const as = (user: TestUser) => ({ authorization: `Bearer ${user.token}` });

      // A's turn, held mid-reply.
      const first = await fetch(`${url}/chat`, {
        method: "POST",
        headers: { ...as(ada), "content-type": "application/json" },
        body: JSON.stringify({ messages: [userMessage("tell me", `u-owner-${buffer}`)] }),
      });
      assert.equal(first.status, 200);
      const adaConversation = String(first.headers.get("x-conversation-id"));
      const adaReading = readChunks(first);
      const streamId = await waitFor(async () => {
        const row = await Conversation.findById(adaConversation).lean<PlainObject>();
        return typeof row?.activeStreamId === "string" ? row.activeStreamId : undefined;
      }, 5000);

      // B's own conversation points at A's stream (the API no longer lets B write the field;
      // written here as if B had found another way).
      const mine = await fetch(`${url}/chat/conversations`, {
        method: "POST",
        headers: { ...as(bob), "content-type": "application/json" },
        body: JSON.stringify({ title: "bob's" }),
      });
      const bobConversation = ((await mine.json()) as { data: { id: string } }).data.id;
      await Conversation.updateOne(
        { _id: bobConversation },
        { $set: { activeStreamId: streamId } },
      );

      // A failed check must not leave A's turn held (it would hold the suite for 30 s).
      const assertOrRelease = (check: () => void) => {
        try {
          check();
        } catch (error) {
          state.release();
          throw error;
        }
      };
      const replay = await fetch(`${url}/chat/${bobConversation}/stream`, { headers: as(bob) });
      const replayed = replay.status === 200 ? textOf(await readChunks(replay, () => true)) : "";
      assertOrRelease(() => assert.equal(replay.status, 204, `B read A's reply: "${replayed}"`));
      const stop = await fetch(`${url}/chat/${bobConversation}/stream`, {
        method: "DELETE",
        headers: as(bob),
      });
      assert.equal(stop.status, 204);
      // A's own conversation is a 404 to B, as before.
      const other = await fetch(`${url}/chat/${adaConversation}/stream`, {
        method: "DELETE",
        headers: as(bob),
      });
      assert.equal(other.status, 404);

      // A's turn goes on to its end, unstopped, and A can still reattach to it.
      const resumed = await fetch(`${url}/chat/${adaConversation}/stream`, { headers: as(ada) });
      assert.equal(resumed.status, 200);
      state.release();
      assert.equal(textOf(await readChunks(resumed)), FULL);
      assert.equal(textOf(await adaReading), FULL);
      assert.equal(state.aborted, 0, "B's Stop did not reach A's turn");
      const stored = await waitFor(async () => {
        const row = await ChatMessage.findOne({
          conversationId: adaConversation,
          role: "assistant",
        }).lean<PlainObject>();
        return row?.status && row.status !== "streaming" ? row : undefined;
      }, 5000);
      assert.equal(stored.status, "done");
      await Conversation.updateOne(
        { _id: bobConversation },
        { $unset: { activeStreamId: 1, stopStreamId: 1 } },
      );
    });
  }
});
