/**
 * Child process: in-process cost of the AI SDK adapter. Interleaved rounds of three arms, all
 * listing the same caller's todos (limit 20, owner populated) against the same database:
 *   direct    core `list(resource, ctx, input)` with transport "ai" (the same surface rules)
 *   execute   `getMCPTools({app, user}).todos_list.execute(input, {toolCallId, messages})`,
 *             the ToolSet built once
 *   perCall   `getMCPTools({app, user})` built anew for each call, then execute (what a chat
 *             route that builds its tools per request pays)
 * Each arm runs sequentially (latency) and with 16 calls in flight (throughput), for a fixed
 * time per round.
 */
import mongoose from "mongoose";
import { getMCPTools } from "../../src/ai/index.js";
import { list } from "../../src/core/index.js";
import { callContext } from "../../src/core/services.js";
import { connectDatabase, TerrenoApp, toUser } from "../../src/index.js";
import { resourceOf } from "../../src/rest/modelRouter.js";
import { STANDALONE_SERVICES } from "../../src/tools/services.js";
import { send, sendLast } from "../lib/ipc.js";
import { Todo, todoRouter, User } from "../models.js";

export interface InprocArmRound {
  latencies: number[];
  throughput: number;
  /** This process's CPU (user + system) per call, ms: the adapter's own cost shows here. */
  cpuPerCall: number;
}

export type InprocResult = Record<
  "direct" | "execute" | "perCall",
  { c1: InprocArmRound[]; c16: InprocArmRound[] }
>;

const uri = process.env.MONGODB_URI;
const userId = process.env.BENCH_USER_ID;
const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
if (!uri || !userId) throw new Error("inproc.ts needs MONGODB_URI and BENCH_USER_ID");

await connectDatabase(uri);
await Promise.all([User.init(), Todo.init()]);
send({ type: "ready", ports: {} });

const router = todoRouter();
const app = new TerrenoApp({ userModel: User, auth: { jwt: { secret: "unused-in-process" } } });
app.register(router);
const resource = resourceOf(router);
if (!resource) throw new Error("no resource behind the todo router");
const userDoc = await User.findById(userId).exec();
if (!userDoc) throw new Error(`no user ${userId}`);
const user = toUser(userDoc);
const input = { limit: 20 };
const options = { toolCallId: "bench", messages: [], context: {} };
const tools = getMCPTools({ app, user });

type Call = () => Promise<unknown>;
const arms: Record<keyof InprocResult, Call> = {
  direct: () =>
    list(resource, callContext(STANDALONE_SERVICES, { user, transport: "ai", headers: {} }), input),
  execute: () => tools.todos_list.execute?.(input, options) as Promise<unknown>,
  perCall: () =>
    getMCPTools({ app, user }).todos_list.execute?.(input, options) as Promise<unknown>,
};

function check(output: unknown): void {
  const data = (output as { data?: unknown[] }).data;
  if (!Array.isArray(data) || data.length !== 20) {
    throw new Error(`unexpected output: ${JSON.stringify(output).slice(0, 300)}`);
  }
  const owner = (data[0] as { ownerId?: { name?: unknown } }).ownerId;
  if (typeof owner !== "object" || typeof owner?.name !== "string") {
    throw new Error(`owner not populated: ${JSON.stringify(data[0])}`);
  }
}

async function runArm(
  call: Call,
  concurrency: number,
  forSeconds: number,
): Promise<InprocArmRound> {
  const latencies: number[] = [];
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const deadline = started + forSeconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const output = await call();
        latencies.push(performance.now() - t0);
        if (latencies.length % 97 === 0) check(output);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return {
    latencies,
    throughput: latencies.length / elapsed,
    cpuPerCall: (cpu.user + cpu.system) / 1000 / Math.max(1, latencies.length),
  };
}

try {
  for (const call of Object.values(arms)) check(await call());
  // Warm-up: JIT, connection pool, Mongoose's compiled paths.
  for (const call of Object.values(arms)) await runArm(call, 16, Math.max(1, seconds / 2));
  const result = {} as InprocResult;
  const names = Object.keys(arms) as Array<keyof InprocResult>;
  for (const name of names) result[name] = { c1: [], c16: [] };
  for (let round = 0; round < rounds; round += 1) {
    // Rotate the order every round so no arm always runs first.
    const order = names.map((_, i) => names[(i + round) % names.length]);
    for (const name of order) result[name].c1.push(await runArm(arms[name], 1, seconds));
    for (const name of [...order].reverse()) {
      result[name].c16.push(await runArm(arms[name], 16, seconds));
    }
  }
  await mongoose.disconnect();
  await sendLast({ type: "result", result });
} catch (error) {
  await mongoose.disconnect();
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  await sendLast({ type: "failed", message });
}
