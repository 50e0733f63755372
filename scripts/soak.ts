// Soak test behind `npm run soak`: 20 concurrent MCP clients (SDK v2) run mixed reads and writes
// against a listening app on a private FerretDB for SOAK_SECONDS (default 60). Prints total calls,
// errors, p50/p95 latency and the process RSS after warm-up and at the end; exits non-zero on any
// error or on RSS growth of 10% or more.
//
// Environment: SOAK_SECONDS (default 60), SOAK_CLIENTS (default 20), SOAK_WARMUP_SECONDS
// (default: a sixth of the run, at least 5 s).

import os from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import mongoose from "mongoose";
import { connectDatabase } from "../src/app/database.js";
import { TerrenoApp } from "../src/app/TerrenoApp.js";
import { modelRouter } from "../src/rest/modelRouter.js";
import { startFerretDB, withDatabaseName } from "../src/testing/ferretdb.js";
import { signUp } from "../test/helpers/auth.js";
import { connectClient, listen, type McpTestClient } from "../test/helpers/mcpClients.js";
import { Food, Todo, User } from "../test/helpers/models.js";
import { foodOptions, JWT_SECRET, todoOptions } from "../test/helpers/restApp.js";

const SECONDS = Number(process.env.SOAK_SECONDS ?? 60);
const CLIENTS = Number(process.env.SOAK_CLIENTS ?? 20);
const WARMUP_SECONDS = Number(process.env.SOAK_WARMUP_SECONDS ?? Math.max(5, SECONDS / 6));
const MAX_GROWTH_PERCENT = 10;

const gc = (globalThis as { gc?: () => void }).gc;

function rssMb(): number {
  gc?.();
  return process.memoryUsage().rss / 1024 / 1024;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

interface Stats {
  calls: number;
  errors: number;
  byTool: Record<string, number>;
  errorSamples: string[];
  latencies: number[];
}

async function runClient(
  client: McpTestClient,
  index: number,
  deadline: number,
  stats: Stats,
): Promise<void> {
  const own: string[] = [];
  let n = 0;
  const call = async (name: string, args: Record<string, unknown>) => {
    const started = performance.now();
    try {
      const result = await client.callTool(name, args);
      stats.latencies.push(performance.now() - started);
      stats.calls += 1;
      stats.byTool[name] = (stats.byTool[name] ?? 0) + 1;
      if (result.isError) {
        stats.errors += 1;
        if (stats.errorSamples.length < 5) {
          stats.errorSamples.push(`${name}: ${result.content[0]?.text?.split("\n")[0]}`);
        }
        return undefined;
      }
      return result.structuredContent as { data?: { id?: string } } | undefined;
    } catch (error) {
      stats.calls += 1;
      stats.errors += 1;
      if (stats.errorSamples.length < 5) stats.errorSamples.push(`${name}: ${String(error)}`);
      return undefined;
    }
  };

  while (Date.now() < deadline) {
    n += 1;
    const roll = (n * 7 + index * 13) % 20; // a fixed mix, different per client
    const pick = own.length > 0 ? own[(n + index) % own.length] : undefined;
    if (roll < 8 || !pick) {
      if (roll < 4 || !pick) {
        const created = await call("todos_create", {
          title: `soak ${index}-${n}`,
          priority: (n % 5) + 1,
          tags: ["soak"],
        });
        if (created?.data?.id) own.push(created.data.id);
      } else {
        await call("todos_list", { filter: { completed: false }, sort: "-createdAt", limit: 5 });
      }
    } else if (roll < 12) {
      await call("todos_read", { id: pick });
    } else if (roll < 16) {
      await call("todos_update", { id: pick, completed: n % 2 === 0, title: `soak ${n}` });
    } else if (roll < 18) {
      await call("foods_list", { limit: 5 });
    } else if (roll < 19) {
      await call("todos_list", { filter: { priority: { $gte: 3 } }, page: 2, limit: 5 });
    } else {
      const removed = await call("todos_delete", { id: pick });
      if (removed) own.splice(own.indexOf(pick), 1);
    }
  }
}

async function main(): Promise<number> {
  const db = await startFerretDB();
  await connectDatabase(withDatabaseName(db.uri, "soak"));
  await Promise.all(Object.values(mongoose.models).map((model) => model.init()));

  // The test app's routers, without the test hooks that record every call in memory.
  const app = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
    .register(
      modelRouter(
        Todo,
        todoOptions({
          preCreate: (body, req) => ({ ...body, ownerId: req.user?.id }),
          postCreate: undefined,
          preUpdate: undefined,
          postUpdate: undefined,
          preDelete: undefined,
          postDelete: undefined,
        }),
      ),
    )
    .register(modelRouter(Food, foodOptions()))
    .build();
  const server = await listen(app);

  const clients: McpTestClient[] = [];
  for (let i = 0; i < CLIENTS; i += 1) {
    const user = await signUp(app, `soak${i}`);
    clients.push(await connectClient("v2-auto", server.url, user.token));
  }

  const stats: Stats = { calls: 0, errors: 0, byTool: {}, errorSamples: [], latencies: [] };
  const started = Date.now();
  const deadline = started + SECONDS * 1000;
  process.stdout.write(
    `soak: ${CLIENTS} MCP clients (SDK v2) for ${SECONDS} s, warm-up ${WARMUP_SECONDS} s, on ${server.url}\n`,
  );
  const running = clients.map((client, i) => runClient(client, i, deadline, stats));

  const timeline: string[] = [];
  let rssAfterWarmup = 0;
  const sampler = (async () => {
    await sleep(WARMUP_SECONDS * 1000);
    rssAfterWarmup = rssMb();
    timeline.push(`${WARMUP_SECONDS}s=${rssAfterWarmup.toFixed(1)}`);
    const step = Math.max(5, Math.round(SECONDS / 12));
    for (let t = WARMUP_SECONDS + step; t < SECONDS; t += step) {
      await sleep(Math.max(0, started + t * 1000 - Date.now()));
      timeline.push(`${Math.round(t)}s=${rssMb().toFixed(1)}`);
    }
  })();
  await Promise.all(running);
  await sampler;
  const elapsed = (Date.now() - started) / 1000;
  const rssEnd = rssMb();
  const growth = ((rssEnd - rssAfterWarmup) / rssAfterWarmup) * 100;
  const sorted = [...stats.latencies].sort((a, b) => a - b);

  const lines = [
    `machine: ${os.cpus().length} CPUs, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, node ${process.version}, gc ${gc ? "exposed" : "not exposed"}`,
    `duration: ${elapsed.toFixed(1)} s, clients: ${CLIENTS}`,
    `total calls: ${stats.calls} (${(stats.calls / elapsed).toFixed(0)}/s)`,
    `per tool: ${JSON.stringify(stats.byTool)}`,
    `errors: ${stats.errors}${stats.errorSamples.length ? ` e.g. ${stats.errorSamples.join(" | ")}` : ""}`,
    `latency: p50 ${percentile(sorted, 50).toFixed(1)} ms, p95 ${percentile(sorted, 95).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${(sorted.at(-1) ?? 0).toFixed(1)} ms`,
    `rss after warm-up: ${rssAfterWarmup.toFixed(1)} MB, at the end: ${rssEnd.toFixed(1)} MB, growth: ${growth.toFixed(1)}% (goal < ${MAX_GROWTH_PERCENT}%)`,
    `rss timeline (MB): ${timeline.join(" ")} end=${rssEnd.toFixed(1)}`,
    `todos in the database: ${await Todo.countDocuments()}`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);

  for (const client of clients) await client.close();
  await server.close();
  await mongoose.disconnect();
  await db.stop();

  const failed = stats.errors > 0 || growth >= MAX_GROWTH_PERCENT || stats.calls === 0;
  process.stdout.write(`soak: ${failed ? "FAIL" : "PASS"}\n`);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `soak: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
