/**
 * Child process for bench/prod.ts: the bench's todo router in TerrenoApps with production
 * defaults — limits counted in MongoDB, audit to MongoDB (`auditToMongo()`), helmet, the
 * telemetry API with no SDK registered, the chat plugin registered (a mock model) — and one
 * app per breakdown variant, each with one feature switched off or changed, each on its own
 * port, all in this one process so one /proc CPU reading covers whichever arm is measured.
 */
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { isStepCount, pipeUIMessageStreamToResponse, streamText, toUIMessageStream } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import type { Express, Request, Response } from "express";
import mongoose from "mongoose";
import { getMCPTools } from "../../src/ai/index.js";
import { chatPlugin } from "../../src/chat/index.js";
import {
  auditToMongo,
  connectDatabase,
  type RateLimitOptions,
  TerrenoApp,
  type TerrenoAppOptions,
} from "../../src/index.js";
import { benchEnv, serveApps } from "../lib/serve.js";
import { Todo, todoRouter, User } from "../models.js";

const env = benchEnv("prod.ts", ["MONGODB_URI", "BENCH_JWT_SECRET"]);
const jwt = { secret: env.BENCH_JWT_SECRET, expiresInSeconds: 6 * 3600 };

/** The framework's default windows (600 tool calls and writes per minute) would refuse the bench. */
const WIDE = { points: 1_000_000_000, duration: 3600 };

interface Variant {
  rateLimit?: RateLimitOptions | false;
  audit?: boolean;
  helmet?: boolean;
  chat?: boolean;
  /** The chat plugin without stored conversations, and the bare streamText route beside it. */
  chatLean?: boolean;
  mcp?: TerrenoAppOptions["mcp"];
}

const limits = (store: RateLimitOptions["store"], extra: Partial<RateLimitOptions> = {}) => ({
  store,
  auth: { perIp: WIDE },
  writes: WIDE,
  toolCalls: WIDE,
  ...extra,
});

/** Production defaults, and each breakdown arm as a change to them. */
const PROD: Variant = { rateLimit: limits("mongo"), audit: true, helmet: true, chat: true };
export const VARIANTS: Record<string, Variant> = {
  prod: PROD,
  limiterMemory: { ...PROD, rateLimit: limits("memory") },
  limiterOff: { ...PROD, rateLimit: false },
  auditOff: { ...PROD, audit: false },
  helmetOff: { ...PROD, helmet: false },
  chatOff: { ...PROD, chat: false },
  limiterMongoExact: { ...PROD, rateLimit: limits("mongo", { batch: 1 }) },
  // Not a breakdown arm: the chat comparison's lean plugin and bare route (bench/prodKept.ts).
  auxChat: { ...PROD, chat: false, chatLean: true },
};

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/**
 * A mock model that calls `todos_list {limit: 20}` first, then answers one sentence once it has
 * the tool's result: every chat request is one tool call and two model steps.
 */
function mockModel() {
  return new MockLanguageModelV4({
    modelId: "bench-mock",
    doStream: async ({ prompt }) => {
      const answered = prompt.some((message) => message.role === "tool");
      const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
      if (!answered) {
        parts.push(
          {
            type: "tool-call",
            toolCallId: `call-${Math.random().toString(36).slice(2, 10)}`,
            toolName: "todos_list",
            input: JSON.stringify({ limit: 20 }),
          },
          {
            type: "finish",
            finishReason: { unified: "tool-calls", raw: "tool_calls" },
            usage: USAGE,
          },
        );
      } else {
        parts.push(
          { type: "text-start", id: "t1" },
          { type: "text-delta", id: "t1", delta: "You have 20 todos on this page." },
          { type: "text-end", id: "t1" },
          { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: USAGE },
        );
      }
      return { stream: convertArrayToReadableStream(parts) };
    },
  });
}

/**
 * What a developer writes without the plugin: streamText over getMCPTools() for the signed-in
 * caller, the UI message stream piped to the response; no storage, approval or telemetry.
 */
function bareChatRoute(app: TerrenoApp) {
  const model = mockModel();
  return async (req: Request, res: Response) => {
    const user = (req as Request & { user?: { id: string } }).user;
    if (!user) return void res.status(401).end();
    const tools = getMCPTools({ app, user });
    const result = streamText({
      model,
      messages: [{ role: "user", content: "How many todos do I have?" }],
      tools,
      stopWhen: isStepCount(5),
    });
    void pipeUIMessageStreamToResponse({
      response: res,
      stream: toUIMessageStream({
        stream: result.stream,
        tools,
        originalMessages: req.body.messages,
      }),
    });
  };
}

await connectDatabase(env.MONGODB_URI);
await Promise.all([User.init(), Todo.init()]);

const wanted = (process.env.BENCH_PROD_VARIANTS ?? Object.keys(VARIANTS).join(","))
  .split(",")
  .filter(Boolean);
const apps: Record<string, Express> = {};
for (const name of wanted) {
  const variant = VARIANTS[name];
  if (!variant) throw new Error(`prod.ts: unknown variant ${name}`);
  const app = new TerrenoApp({
    userModel: User,
    auth: { jwt },
    rateLimit: variant.rateLimit,
    ...(variant.helmet === false ? { helmet: false } : {}),
    ...(variant.mcp ? { mcp: variant.mcp } : {}),
  }).register(todoRouter());
  if (variant.audit) app.register(auditToMongo({ path: false }));
  if (variant.chat) app.register(chatPlugin({ model: mockModel(), rateLimit: WIDE }));
  if (variant.chatLean) {
    app.register(chatPlugin({ model: mockModel(), rateLimit: WIDE, persist: false }));
    app.register({
      name: "bare-chat",
      register: (express) => express.post("/bare-chat", bareChatRoute(app)),
    });
  }
  await app.rateLimits.ready();
  apps[name] = app.build();
}
await serveApps(apps, () => mongoose.disconnect());
