/**
 * Child process for bench/limiter.ts: the same todo router in three TerrenoApps that differ only
 * in their rate limits — `off` (no `rateLimit`), `memory` (`{store: "memory"}`) and `mongo`
 * (`{store: "mongo"}`, counters in this process's database connection) — each on its own port,
 * in one process, so one CPU reading covers whichever arm is being measured. The windows are
 * wide enough that no request is refused: every request pays for counting, none for a 429.
 */
import type { Express } from "express";
import mongoose from "mongoose";
import { connectDatabase, type RateLimitOptions, TerrenoApp } from "../../src/index.js";
import { benchEnv, serveApps } from "../lib/serve.js";
import { Todo, todoRouter, User } from "../models.js";

const env = benchEnv("limiter.ts", ["MONGODB_URI", "BENCH_JWT_SECRET"]);
const jwt = { secret: env.BENCH_JWT_SECRET, expiresInSeconds: 6 * 3600 };

/** Never reached in a run: counting without refusing. */
const WIDE = { points: 1_000_000_000, duration: 3600 };

await connectDatabase(env.MONGODB_URI);
await Promise.all([User.init(), Todo.init()]);

const variants: Record<string, RateLimitOptions | undefined> = {
  off: undefined,
  memory: { store: "memory", auth: { perIp: WIDE }, writes: WIDE, toolCalls: WIDE },
  mongo: { store: "mongo", auth: { perIp: WIDE }, writes: WIDE, toolCalls: WIDE },
};

const apps: Record<string, Express> = {};
for (const [name, rateLimit] of Object.entries(variants)) {
  const app = new TerrenoApp({ userModel: User, auth: { jwt }, rateLimit }).register(todoRouter());
  await app.rateLimits.ready();
  apps[name] = app.build();
}
await serveApps(apps, () => mongoose.disconnect());
