/**
 * Child process: terreno-mcp under test. One app with the todo router (REST at /todos, MCP at
 * /mcp) plus three apps whose only difference is how many generated models they register (for
 * tools/list scaling), each on its own port. Reports the ports to the harness, then serves.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import mongoose from "mongoose";
import { connectDatabase, TerrenoApp } from "../../src/index.js";
import { send, serveParentRequests } from "../lib/ipc.js";
import { syntheticRouters, Todo, todoRouter, User } from "../models.js";

const uri = process.env.MONGODB_URI;
const secret = process.env.BENCH_JWT_SECRET;
if (!uri || !secret) throw new Error("ours.ts needs MONGODB_URI and BENCH_JWT_SECRET");
const jwt = { secret, expiresInSeconds: 6 * 3600 };
const modelCounts = (process.env.BENCH_MODEL_COUNTS ?? "1,20,200")
  .split(",")
  .filter(Boolean)
  .map(Number);

function listen(app: Express): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, "127.0.0.1", () => resolve(server));
    server.once("error", reject);
  });
}

await connectDatabase(uri);
await Promise.all([User.init(), Todo.init()]);

const servers: Record<string, Server> = {};
servers.main = await listen(
  new TerrenoApp({ userModel: User, auth: { jwt } }).register(todoRouter()).build(),
);
for (const count of modelCounts) {
  const app = new TerrenoApp({ userModel: User, auth: { jwt } });
  for (const router of syntheticRouters(count)) app.register(router);
  servers[`models${count}`] = await listen(app.build());
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
