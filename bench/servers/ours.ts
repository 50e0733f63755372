/**
 * Child process: terreno-mcp under test. One app with the todo router (REST at /todos, MCP at
 * /mcp) plus three apps whose only difference is how many generated models they register (for
 * tools/list scaling), each on its own port. Reports the ports to the harness, then serves.
 */
import type { Express } from "express";
import mongoose from "mongoose";
import { connectDatabase, TerrenoApp } from "../../src/index.js";
import { benchEnv, serveApps } from "../lib/serve.js";
import { syntheticRouters, Todo, todoRouter, User } from "../models.js";

const env = benchEnv("ours.ts", ["MONGODB_URI", "BENCH_JWT_SECRET"]);
const jwt = { secret: env.BENCH_JWT_SECRET, expiresInSeconds: 6 * 3600 };
const modelCounts = (process.env.BENCH_MODEL_COUNTS ?? "1,20,200")
  .split(",")
  .filter(Boolean)
  .map(Number);

await connectDatabase(env.MONGODB_URI);
await Promise.all([User.init(), Todo.init()]);

const apps: Record<string, Express> = {
  main: new TerrenoApp({ userModel: User, auth: { jwt } }).register(todoRouter()).build(),
};
for (const count of modelCounts) {
  const app = new TerrenoApp({ userModel: User, auth: { jwt } });
  for (const router of syntheticRouters(count)) app.register(router);
  apps[`models${count}`] = app.build();
}
await serveApps(apps, () => mongoose.disconnect());
