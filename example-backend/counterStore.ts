/**
 * Where the example counts its rate limits. Without MONGODB_URI it runs on its own embedded
 * FerretDB, one process: memory is exact there. With MONGODB_URI, every instance on that
 * database must share the counts, so they go to the database, over a connection of their own
 * with ONE socket: FerretDB (which MONGODB_URI may name) does not isolate concurrent updates
 * made over different connections, and a pooled connection let 45 requests at once through a
 * limit of 30. One socket serializes this instance's counter updates; on MongoDB it is exact
 * either way (docs/rate-limits-and-audit.md, "FerretDB 1.x").
 */
import mongoose from "mongoose";
import type { RateLimitStore } from "../src/index.js";
import type { Env } from "./chat/modelFromEnv.js";

export interface ExampleCounterStore {
  store: RateLimitStore;
  /** Closes the store's own connection, if it opened one. */
  close(): Promise<void>;
}

/**
 * Opens the store's connection now (the limiters count in memory until it is ready), so only
 * the code that owns the process calls this (server.ts, tests that close it): building the
 * app alone, as the tools CLI and the token counts do, opens nothing.
 */
export function exampleCounterStore(env: Env): ExampleCounterStore {
  if (!env.MONGODB_URI) return { store: "memory", close: async () => {} };
  const counters = mongoose.createConnection(env.MONGODB_URI, {
    maxPoolSize: 1,
    serverSelectionTimeoutMS: 2000,
  });
  counters.set("bufferTimeoutMS", 2000);
  return { store: { mongo: counters }, close: () => counters.close() };
}
