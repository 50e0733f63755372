/**
 * Child process for bench/limiter.ts: the same todo router in three TerrenoApps that differ only
 * in their rate limits — `off` (no `rateLimit`), `memory` (`{store: "memory"}`) and `mongo`
 * (`{store: "mongo"}`, counters in this process's database connection) — each on its own port,
 * in one process, so one CPU reading covers whichever arm is being measured. The windows are
 * wide enough that no request is refused: every request pays for counting, none for a 429.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import mongoose from "mongoose";
import { connectDatabase, type RateLimitOptions, TerrenoApp } from "../../src/index.js";
import { send, serveParentRequests } from "../lib/ipc.js";
import { Todo, todoRouter, User } from "../models.js";

const uri = process.env.MONGODB_URI;
const secret = process.env.BENCH_JWT_SECRET;
if (!uri || !secret) throw new Error("limiter.ts needs MONGODB_URI and BENCH_JWT_SECRET");
const jwt = { secret, expiresInSeconds: 6 * 3600 };

/** Never reached in a run: counting without refusing. */
const WIDE = { points: 1_000_000_000, duration: 3600 };

function listen(app: Express): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, "127.0.0.1", () => resolve(server));
    server.once("error", reject);
  });
}

await connectDatabase(uri);
await Promise.all([User.init(), Todo.init()]);

const variants: Record<string, RateLimitOptions | undefined> = {
  off: undefined,
  memory: { store: "memory", auth: { perIp: WIDE }, writes: WIDE, toolCalls: WIDE },
  mongo: { store: "mongo", auth: { perIp: WIDE }, writes: WIDE, toolCalls: WIDE },
};

const servers: Record<string, Server> = {};
for (const [name, rateLimit] of Object.entries(variants)) {
  const app = new TerrenoApp({ userModel: User, auth: { jwt }, rateLimit }).register(todoRouter());
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
