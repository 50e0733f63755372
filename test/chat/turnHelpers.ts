/**
 * What the durable-turn suites share (turns.test.ts on MongoDB, turnsRedis.test.ts on Redis): a
 * model that streams slowly and can hold mid-reply, an app on a real port, and SSE reading.
 */
import assert from "node:assert/strict";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4 } from "ai/test";
import type { Express } from "express";
import type { PlainObject } from "../../src/core/types.js";
import { USAGE } from "./helpers.js";

const WORDS = Array.from({ length: 30 }, (_, i) => `word${i} `);
export const FULL = WORDS.join("");

/**
 * A model that streams WORDS one at a time, `delayMs` apart; it notes when it is aborted. With
 * `holdAfter`, it waits after that many words until the test calls `release()` or the call is
 * aborted (at most 30 s), so that what the test does mid-reply happens mid-reply however slow
 * the machine.
 */
export function slowModel(delayMs = 40, holdAfter?: number) {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const state = { aborted: 0, release };
  const model = new MockLanguageModelV4({
    modelId: "slow",
    doStream: async (call) => {
      call.abortSignal?.addEventListener("abort", () => {
        state.aborted += 1;
      });
      let sent = 0;
      const hold = () =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 30_000);
          const done = () => {
            clearTimeout(timer);
            resolve();
          };
          void released.then(done);
          if (call.abortSignal?.aborted) done();
          call.abortSignal?.addEventListener("abort", done);
        });
      const parts: LanguageModelV4StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t1" },
        ...WORDS.map((delta) => ({ type: "text-delta" as const, id: "t1", delta })),
        { type: "text-end", id: "t1" },
        { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: USAGE },
      ];
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          async pull(controller) {
            const part = parts.shift();
            if (!part) return controller.close();
            if (part.type === "text-delta") {
              if (sent === holdAfter) await hold();
              sent += 1;
              await new Promise((r) => setTimeout(r, delayMs));
            }
            controller.enqueue(part);
          },
        }),
      };
    },
  });
  return { model, state };
}

export function listen(app: Express): Promise<{ server: Server; url: string }> {
  return new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => {
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    });
  });
}

/** Reads an SSE body's chunks, calling `onChunk` for each, until the body ends or `stop()`. */
export async function readChunks(
  response: Response,
  onChunk: (chunk: PlainObject) => boolean | undefined = () => undefined,
): Promise<PlainObject[]> {
  const chunks: PlainObject[] = [];
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    buffered += decoder.decode(value, { stream: true });
    const events = buffered.split("\n\n");
    buffered = events.pop() ?? "";
    for (const event of events) {
      const line = event.split("\n").find((l) => l.startsWith("data: "));
      if (!line || line === "data: [DONE]") continue;
      const chunk = JSON.parse(line.slice(6)) as PlainObject;
      chunks.push(chunk);
      if (onChunk(chunk)) {
        await reader.cancel();
        return chunks;
      }
    }
  }
}

/**
 * A client that reads a turn's first three words, then goes away (a reload): the conversation
 * and the id of the assistant message being streamed.
 */
export async function readThenLeave(
  response: Response,
  hangUp: AbortController,
): Promise<{ conversationId: string; messageId: string }> {
  assert.equal(response.status, 200);
  const conversationId = String(response.headers.get("x-conversation-id"));
  let words = 0;
  const seen = await readChunks(response, (chunk) => chunk.type === "text-delta" && ++words >= 3);
  hangUp.abort();
  return {
    conversationId,
    messageId: String(seen.find((chunk) => chunk.type === "start")?.messageId),
  };
}

export const textOf = (chunks: PlainObject[]) =>
  chunks
    .filter((c) => c.type === "text-delta")
    .map((c) => c.delta)
    .join("");
