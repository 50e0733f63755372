/**
 * Shared pieces of the chat suites: a scripted mock model, the app, SSE parsing (which waits for
 * the turn to be stored whole), and the stored assistant message with its approval answered the
 * way useChat sends it back.
 */
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import type { Express } from "express";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { DEMO_MODEL_ID, DEMO_MODEL_LABEL } from "../../src/chat/demo.js";
import {
  ChatMessage,
  type ChatPluginOptions,
  Conversation,
  chatPlugin,
} from "../../src/chat/index.js";
import { decodeParts } from "../../src/chat/storedParts.js";
import type { PlainObject } from "../../src/core/types.js";
import type { TerrenoAppOptions } from "../../src/plugin/options.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { bearer, type TestUser } from "../helpers/auth.js";
import { Food, Todo, User } from "../helpers/models.js";
import { foodOptions, JWT_SECRET, todoOptions } from "../helpers/restApp.js";

export const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** One model call's reply: tool calls (ends the step with tool-calls) or text deltas. */
export type Step = { tools: Array<[string, Record<string, unknown>]> } | { text: string[] };

function streamOf(step: Step, index: number) {
  const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
  if ("tools" in step) {
    step.tools.forEach(([toolName, input], i) => {
      parts.push({
        type: "tool-call",
        toolCallId: `call-${index}-${i}-${Math.random().toString(36).slice(2, 8)}`,
        toolName,
        input: JSON.stringify(input),
      });
    });
    parts.push({
      type: "finish",
      finishReason: { unified: "tool-calls", raw: "tool_calls" },
      usage: USAGE,
    });
  } else {
    parts.push({ type: "text-start", id: "t1" });
    for (const delta of step.text) parts.push({ type: "text-delta", id: "t1", delta });
    parts.push({ type: "text-end", id: "t1" });
    parts.push({ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: USAGE });
  }
  return { stream: convertArrayToReadableStream(parts) };
}

/** A mock model replying with `steps` in order, then "ok." forever. */
export function scriptedModel(steps: Step[] = []): MockLanguageModelV4 {
  const queue = [...steps];
  let index = 0;
  return new MockLanguageModelV4({
    modelId: "mock-chat",
    doStream: async () => {
      index += 1;
      return streamOf(queue.shift() ?? { text: ["ok."] }, index);
    },
  });
}

/** `appOptions`: e.g. `logger` and `logging`, for a test that reads the server's log. */
export function buildChatApp(
  options: ChatPluginOptions,
  appOptions: Pick<TerrenoAppOptions, "logger" | "logging"> = {},
): Express {
  const app = new TerrenoApp({
    userModel: User,
    auth: { jwt: { secret: JWT_SECRET } },
    ...appOptions,
  })
    .register(modelRouter(Todo, todoOptions()))
    .register(modelRouter(Food, foodOptions({ mcp: { methods: ["list", "read"] } })));
  app.register(chatPlugin(options));
  return app.build();
}

export interface ChatReply {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  chunks: Array<Record<string, unknown>>;
  text: string;
}

/** What GET /chat/info answers for a chat on the offline demo model with default options. */
export const DEMO_CHAT_INFO = {
  model: DEMO_MODEL_ID,
  provider: "terreno",
  label: DEMO_MODEL_LABEL,
  offline: true,
  approval: "writes",
  maxMessageLength: 8000,
};

/** POST /chat, reading the whole UI message stream. */
export async function postChat(
  app: Express,
  user: TestUser | undefined,
  body: unknown,
): Promise<ChatReply> {
  let req = request(app).post("/chat");
  if (user) req = req.set(bearer(user));
  const res = await req
    .send(body as object)
    .buffer(true)
    .parse((response, callback) => {
      let data = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        data += chunk;
      });
      response.on("end", () => callback(null, data));
    });
  const raw = String(res.body ?? "");
  const chunks: Array<Record<string, unknown>> = [];
  const isStream = String(res.headers["content-type"] ?? "").includes("text/event-stream");
  if (isStream) {
    for (const line of raw.split("\n")) {
      if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
      chunks.push(JSON.parse(line.slice(6)));
    }
  }
  const text = chunks
    .filter((chunk) => chunk.type === "text-delta")
    .map((chunk) => chunk.delta)
    .join("");
  let body2: unknown = raw;
  if (!isStream) {
    try {
      body2 = JSON.parse(raw);
    } catch {}
  }
  // The turn is still being stored when its stream ends (chatTurns.ts): wait until it is closed,
  // so that what a test reads next, and the next turn, see it whole.
  const conversationId = res.headers["x-conversation-id"];
  if (user && isStream && typeof conversationId === "string") {
    await turnSettled(app, user, conversationId);
  }
  return {
    status: res.status,
    headers: res.headers as Record<string, string>,
    body: body2,
    chunks,
    text,
  };
}

/**
 * Waits, through the public API, until no turn of the conversation is running (no
 * `activeStreamId`) and every stored assistant message has its final `status`; returns the
 * stored messages (`GET /chat/conversations/:id/messages`).
 */
async function turnSettled(
  app: Express,
  user: TestUser,
  conversationId: string,
  ms = 10_000,
): Promise<PlainObject[]> {
  return waitFor(async () => {
    const conversation = await request(app)
      .get(`/chat/conversations/${conversationId}`)
      .set(bearer(user));
    if (conversation.status !== 200) {
      throw new Error(`turnSettled: GET conversation answered ${conversation.status}`);
    }
    if (conversation.body.data?.activeStreamId) return undefined;
    const messages = await request(app)
      .get(`/chat/conversations/${conversationId}/messages`)
      .set(bearer(user));
    const rows = (messages.body.data ?? []) as PlainObject[];
    return rows.some((row) => row.status === "streaming") ? undefined : rows;
  }, ms);
}

export function userMessage(text: string, id = `u-${Math.random().toString(36).slice(2, 10)}`) {
  return { id, role: "user", parts: [{ type: "text", text }] };
}

export async function waitFor<T>(
  probe: () => Promise<T | undefined | null | false>,
  ms = 3000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error("waitFor: timed out");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Waits until no conversation has a turn streaming: every turn stores its end after its stream
 * is read, so a suite waits for that before its database goes.
 */
export function turnsEnded(timeoutMs: number): Promise<unknown> {
  return waitFor(
    async () => !(await Conversation.exists({ activeStreamId: { $exists: true } })),
    timeoutMs,
  );
}

export type UIPart = PlainObject & { type: string; state?: string; toolCallId?: string };

/** The stored rows, oldest first, with their parts decoded (storedParts.ts). */
export async function storedMessages(conversationId: string): Promise<PlainObject[]> {
  const rows = await ChatMessage.find({ conversationId })
    .select("+partsJson +parts")
    .sort({ createdAt: 1, _id: 1 })
    .lean<PlainObject[]>();
  return rows.map((row) => ({ ...row, parts: decodeParts(row) }));
}

/** Waits until the assistant message of a conversation is stored and has a part matching `test`. */
export async function assistantMessage(
  conversationId: string,
  test: (parts: UIPart[]) => boolean = () => true,
): Promise<PlainObject & { messageId: string; parts: UIPart[] }> {
  return waitFor(async () => {
    const rows = await storedMessages(conversationId);
    const found = rows.filter((row) => row.role === "assistant").at(-1) as
      | (PlainObject & { messageId: string; parts: UIPart[] })
      | undefined;
    return found && test(found.parts) ? found : undefined;
  });
}

/** Waits until the assistant message of a conversation is stored asking for an approval. */
export function pendingApproval(conversationId: string) {
  return assistantMessage(conversationId, (parts) =>
    parts.some((part) => part.state === "approval-requested"),
  );
}

/**
 * Posts the first message of a conversation whose model proposes a write, and waits for the
 * approval request to be stored: the reply, the conversation and the pending message.
 */
export async function approvalAsked(app: Express, user: TestUser, message: unknown) {
  const first = await postChat(app, user, { messages: [message] });
  const conversationId = first.headers["x-conversation-id"];
  return { first, conversationId, pending: await pendingApproval(conversationId) };
}

/** The stored assistant message with its pending approval answered. */
export function answerApproval(message: { messageId: string; parts: UIPart[] }, approved: boolean) {
  return {
    id: message.messageId,
    role: "assistant",
    parts: message.parts.map((part) =>
      part.state === "approval-requested"
        ? {
            ...part,
            state: "approval-responded",
            approval: { ...(part.approval as PlainObject), approved },
          }
        : part,
    ),
  };
}
