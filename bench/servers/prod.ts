/**
 * Child process for bench/prod.ts: the bench's todo router in TerrenoApps with production
 * defaults — limits counted in MongoDB, audit to MongoDB (`auditToMongo()`), helmet, the
 * telemetry API with no SDK registered, the chat plugin registered (a mock model) — and one
 * app per breakdown variant, each with one feature switched off or changed, each on its own
 * port, all in this one process so one /proc CPU reading covers whichever arm is measured.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { MockLanguageModelV4 } from "ai/test";
import type { Express } from "express";
import mongoose from "mongoose";
import { chatPlugin } from "../../src/chat/index.js";
import {
  auditToMongo,
  connectDatabase,
  type RateLimitOptions,
  TerrenoApp,
  type TerrenoAppOptions,
} from "../../src/index.js";
import { send, serveParentRequests } from "../lib/ipc.js";
import { Todo, todoRouter, User } from "../models.js";

const uri = process.env.MONGODB_URI;
const secret = process.env.BENCH_JWT_SECRET;
if (!uri || !secret) throw new Error("prod.ts needs MONGODB_URI and BENCH_JWT_SECRET");
const jwt = { secret, expiresInSeconds: 6 * 3600 };

/** The framework's default windows (600 tool calls and writes per minute) would refuse the bench. */
const WIDE = { points: 1_000_000_000, duration: 3600 };

interface Variant {
  rateLimit?: RateLimitOptions | false;
  audit?: boolean;
  helmet?: boolean;
  chat?: boolean;
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
};

function listen(app: Express): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, "127.0.0.1", () => resolve(server));
    server.once("error", reject);
  });
}

function mockModel() {
  return new MockLanguageModelV4({
    modelId: "bench-mock",
    doStream: async () => {
      throw new Error("the prod bench never calls the chat model");
    },
  });
}

await connectDatabase(uri);
await Promise.all([User.init(), Todo.init()]);

const wanted = (process.env.BENCH_PROD_VARIANTS ?? Object.keys(VARIANTS).join(","))
  .split(",")
  .filter(Boolean);
const servers: Record<string, Server> = {};
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
  if (variant.chat) app.register(chatPlugin({ app, model: mockModel(), rateLimit: WIDE }));
  await app.rateLimits.ready();
  servers[name] = await listen(app.build());
}

serveParentRequests(async () => {
  for (const server of Object.values(servers)) {
    server.closeAllConnections();
    server.close();
  }
  await mongoose.disconnect();
});
send({
  type: "ready",
  ports: Object.fromEntries(
    Object.entries(servers).map(([name, server]) => [name, (server.address() as AddressInfo).port]),
  ),
});
