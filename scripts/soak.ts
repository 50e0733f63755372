// Soak test behind `npm run soak`: SOAK_CLIENTS (default 50) concurrent clients, half over REST and
// half over MCP (JSON-RPC `tools/call` on POST /mcp), run mixed reads and writes against a
// listening app with the rate limits on (the `"mongo"` store by default, on a one-socket
// connection of its own as docs/rate-limits-and-audit.md advises for FerretDB) on a private FerretDB,
// for SOAK_SECONDS (default 60). Several clients share each user, so the per-user limits are
// reached and 429s happen. Every response is classified: ok, rate_limited (HTTP 429 with code
// `rate_limited` and a Retry-After), or an error of another kind (any other 4xx, a 5xx, an
// isError tool result, a network failure or a timeout). At the end, every acknowledged write is
// re-read from the database: each acknowledged create exists with its last acknowledged values
// (updates and soft deletes included), and nothing a refused request carried was stored.
//
// Passes with zero errors of another kind (zero 5xx among them), zero lost acknowledged writes,
// zero stored refused writes, and RSS growth from the end of the warm-up below 10%.
//
// Environment: SOAK_SECONDS (default 60), SOAK_CLIENTS (default 50), SOAK_CLIENTS_PER_USER
// (default 5), SOAK_STORE (`mongo` or `memory`, default `mongo`), SOAK_POINTS and
// SOAK_WINDOW_SECONDS (the per-user write and tool-call windows, default 10 per 10 s),
// SOAK_WARMUP_SECONDS (default: a sixth of the run, at least 5 s).

import os from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import mongoose from "mongoose";
import { connectDatabase } from "../src/app/database.js";
import { TerrenoApp } from "../src/app/TerrenoApp.js";
import { modelRouter } from "../src/rest/modelRouter.js";
import { startFerretDB, withDatabaseName } from "../src/testing/ferretdb.js";
import { listen } from "../test/helpers/mcpClients.js";
import { Food, Todo, User } from "../test/helpers/models.js";
import { foodOptions, JWT_SECRET, todoOptions } from "../test/helpers/restApp.js";

const SECONDS = Number(process.env.SOAK_SECONDS ?? 60);
const CLIENTS = Number(process.env.SOAK_CLIENTS ?? 50);
const CLIENTS_PER_USER = Number(process.env.SOAK_CLIENTS_PER_USER ?? 5);
const STORE = (process.env.SOAK_STORE ?? "mongo") === "memory" ? "memory" : "mongo";
const POINTS = Number(process.env.SOAK_POINTS ?? 10);
const WINDOW_SECONDS = Number(process.env.SOAK_WINDOW_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.SOAK_WARMUP_SECONDS ?? Math.max(5, SECONDS / 6));
const MAX_GROWTH_PERCENT = 10;
const REQUEST_TIMEOUT_MS = 30_000;
const PASSWORD = "correct horse battery";
const ACCEPT = "application/json, text/event-stream";

const gc = (globalThis as { gc?: () => void }).gc;

function rssMb(): number {
  gc?.();
  return process.memoryUsage().rss / 1024 / 1024;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

type Surface = "rest" | "mcp";
/** What one response was. `other` is an error of another kind than a rate limit: a failure. */
type Kind = "ok" | "rate_limited" | "other";

interface Outcome {
  kind: Kind;
  /** For `other`: what it was (`500 internal`, `isError not_found`, `network ECONNRESET`…). */
  what?: string;
  status?: number;
  retryAfter?: number;
  data?: Record<string, unknown>;
}

interface Stats {
  calls: number;
  byOperation: Record<string, number>;
  byKind: Record<string, number>;
  /** Failures by what they were (each is an error of another kind). */
  others: Record<string, number>;
  otherSamples: string[];
  serverErrors: number;
  latencies: Record<Surface, number[]>;
}

/** One todo a client owns: its last acknowledged state, and whether an unacknowledged write may have changed it since. */
interface Tracked {
  id: string;
  title: string;
  completed: boolean;
  deleted: boolean;
  uncertain: boolean;
}

interface Ledger {
  /** Every acknowledged create, by id. */
  todos: Map<string, Tracked>;
  /** Titles of creates that were refused (429): none may be stored. */
  refusedCreates: Set<string>;
  /** Titles of creates whose outcome is unknown (network failure): not judged. */
  unknownCreates: Set<string>;
}

async function send(
  url: string,
  method: string,
  body: unknown,
  token: string,
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> | undefined }> {
  const res = await fetch(url, {
    method,
    headers: {
      Accept: ACCEPT,
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await res.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json };
}

function retryAfterOf(headers: Headers): number | undefined {
  const value = Number(headers.get("retry-after"));
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

/** A REST answer: 2xx ok; 429 rate_limited only with its code and a Retry-After; else other. */
function classifyRest(answer: Awaited<ReturnType<typeof send>>): Outcome {
  const { status, headers, json } = answer;
  if (status >= 200 && status < 300) {
    return { kind: "ok", status, data: json?.data as Record<string, unknown> | undefined };
  }
  const code = typeof json?.code === "string" ? json.code : "no-code";
  const retryAfter = retryAfterOf(headers);
  if (status === 429 && code === "rate_limited" && retryAfter) {
    return { kind: "rate_limited", status, retryAfter };
  }
  return { kind: "other", status, what: `${status} ${code}` };
}

/** An MCP answer: a result that is no isError is ok; HTTP 429 with `rate_limited` is rate_limited. */
function classifyMcp(answer: Awaited<ReturnType<typeof send>>): Outcome {
  const { status, headers, json } = answer;
  const error = json?.error as { code?: number; data?: { error?: { code?: string } } } | undefined;
  if (status === 429) {
    const retryAfter = retryAfterOf(headers);
    if (error?.data?.error?.code === "rate_limited" && retryAfter) {
      return { kind: "rate_limited", status, retryAfter };
    }
    return { kind: "other", status, what: `429 ${error?.data?.error?.code ?? "no-code"}` };
  }
  if (status !== 200 || error || !json?.result) {
    return {
      kind: "other",
      status,
      what: `${status} rpc ${error?.code ?? "?"} ${error?.data?.error?.code ?? ""}`.trim(),
    };
  }
  const result = json.result as {
    isError?: boolean;
    content?: Array<{ text?: string }>;
    structuredContent?: { data?: Record<string, unknown> };
  };
  if (result.isError) {
    const code = result.content?.[0]?.text?.split(":")[0] ?? "?";
    return { kind: "other", status, what: `isError ${code}` };
  }
  return { kind: "ok", status, data: result.structuredContent?.data };
}

interface Client {
  index: number;
  surface: Surface;
  token: string;
  refreshToken: string;
}

type Operation =
  | { op: "create"; title: string; priority: number }
  | { op: "list" }
  | { op: "read"; id: string }
  | { op: "update"; id: string; title: string; completed: boolean }
  | { op: "foods" }
  | { op: "page2" }
  | { op: "delete"; id: string };

function restRequest(base: string, operation: Operation): [string, string, unknown] {
  switch (operation.op) {
    case "create":
      return [
        "POST",
        `${base}/todos`,
        { title: operation.title, priority: operation.priority, tags: ["soak"] },
      ];
    case "list":
      return ["GET", `${base}/todos?completed=false&sort=-createdAt&limit=5`, undefined];
    case "read":
      return ["GET", `${base}/todos/${operation.id}`, undefined];
    case "update":
      return [
        "PATCH",
        `${base}/todos/${operation.id}`,
        { title: operation.title, completed: operation.completed },
      ];
    case "foods":
      return ["GET", `${base}/foods?limit=5`, undefined];
    case "page2":
      return ["GET", `${base}/todos?priority[$gte]=3&page=2&limit=5`, undefined];
    case "delete":
      return ["DELETE", `${base}/todos/${operation.id}`, undefined];
  }
}

function mcpCall(operation: Operation): [string, Record<string, unknown>] {
  switch (operation.op) {
    case "create":
      return [
        "todos_create",
        { title: operation.title, priority: operation.priority, tags: ["soak"] },
      ];
    case "list":
      return ["todos_list", { filter: { completed: false }, sort: "-createdAt", limit: 5 }];
    case "read":
      return ["todos_read", { id: operation.id }];
    case "update":
      return [
        "todos_update",
        { id: operation.id, title: operation.title, completed: operation.completed },
      ];
    case "foods":
      return ["foods_list", { limit: 5 }];
    case "page2":
      return ["todos_list", { filter: { priority: { $gte: 3 } }, page: 2, limit: 5 }];
    case "delete":
      return ["todos_delete", { id: operation.id }];
  }
}

async function runClient(
  base: string,
  client: Client,
  deadline: number,
  stats: Stats,
  ledger: Ledger,
): Promise<void> {
  const own: Tracked[] = [];
  let n = 0;
  let rpcId = 0;

  const record = (name: string, outcome: Outcome, ms: number) => {
    stats.calls += 1;
    stats.latencies[client.surface].push(ms);
    stats.byOperation[name] = (stats.byOperation[name] ?? 0) + 1;
    stats.byKind[outcome.kind] = (stats.byKind[outcome.kind] ?? 0) + 1;
    if (outcome.kind === "other") {
      const what = outcome.what ?? "?";
      stats.others[what] = (stats.others[what] ?? 0) + 1;
      if ((outcome.status ?? 0) >= 500) stats.serverErrors += 1;
      if (stats.otherSamples.length < 8) {
        stats.otherSamples.push(`${client.surface} ${name}: ${what}`);
      }
    }
  };

  const perform = async (operation: Operation): Promise<Outcome> => {
    const name = `${client.surface} ${operation.op}`;
    const started = performance.now();
    let outcome: Outcome;
    try {
      if (client.surface === "rest") {
        const [method, url, body] = restRequest(base, operation);
        outcome = classifyRest(await send(url, method, body, client.token));
      } else {
        const [tool, args] = mcpCall(operation);
        rpcId += 1;
        const message = {
          jsonrpc: "2.0",
          id: rpcId,
          method: "tools/call",
          params: { name: tool, arguments: args },
        };
        outcome = classifyMcp(await send(`${base}/mcp`, "POST", message, client.token));
      }
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      const reason =
        (error as Error).name === "TimeoutError" ? "timeout" : (cause ?? String(error));
      outcome = { kind: "other", what: `network ${reason}` };
    }
    record(name, outcome, performance.now() - started);
    // A polite client waits after a 429 (at most a second here, so the run keeps pressing).
    if (outcome.kind === "rate_limited") {
      await sleep(Math.min(1000, (outcome.retryAfter ?? 1) * 1000));
    }
    return outcome;
  };

  // Each REST client rotates its refresh token now and then: sessions under load.
  const refresh = async () => {
    const started = performance.now();
    let outcome: Outcome;
    try {
      const answer = await send(
        `${base}/auth/refresh_token`,
        "POST",
        { refreshToken: client.refreshToken },
        client.token,
      );
      outcome = classifyRest(answer);
      if (outcome.kind === "ok" && outcome.data) {
        client.token = String(outcome.data.token);
        client.refreshToken = String(outcome.data.refreshToken);
      }
    } catch (error) {
      outcome = { kind: "other", what: `network ${String(error)}` };
    }
    record("rest refresh", outcome, performance.now() - started);
  };

  while (Date.now() < deadline) {
    n += 1;
    if (client.surface === "rest" && n % 20 === 0) {
      await refresh();
      continue;
    }
    const roll = (n * 7 + client.index * 13) % 20; // a fixed mix, different per client
    const live = own.filter((todo) => !todo.deleted);
    const pick = live.length > 0 ? live[(n + client.index) % live.length] : undefined;
    if (roll < 4 || !pick) {
      const title = `soak ${client.surface} c${client.index} n${n}`;
      const outcome = await perform({ op: "create", title, priority: (n % 5) + 1 });
      if (outcome.kind === "ok" && typeof outcome.data?.id === "string") {
        const todo: Tracked = {
          id: outcome.data.id,
          title,
          completed: false,
          deleted: false,
          uncertain: false,
        };
        own.push(todo);
        ledger.todos.set(todo.id, todo);
      } else if (outcome.kind === "rate_limited") {
        ledger.refusedCreates.add(title);
      } else {
        ledger.unknownCreates.add(title);
      }
    } else if (roll < 8) {
      await perform({ op: "list" });
    } else if (roll < 12) {
      await perform({ op: "read", id: pick.id });
    } else if (roll < 16) {
      const title = `soak ${client.surface} c${client.index} n${n} updated`;
      const completed = n % 2 === 0;
      const outcome = await perform({ op: "update", id: pick.id, title, completed });
      if (outcome.kind === "ok") {
        Object.assign(pick, { title, completed, uncertain: false });
      } else if (outcome.kind === "other") {
        pick.uncertain = true;
      }
    } else if (roll < 18) {
      await perform({ op: "foods" });
    } else if (roll < 19) {
      await perform({ op: "page2" });
    } else {
      const outcome = await perform({ op: "delete", id: pick.id });
      if (outcome.kind === "ok") pick.deleted = true;
      else if (outcome.kind === "other") pick.uncertain = true;
    }
  }
}

interface Verification {
  checked: number;
  lost: string[];
  storedRefused: string[];
  unknown: number;
}

/** Re-reads every acknowledged write from the database itself. */
async function verify(ledger: Ledger): Promise<Verification> {
  const ids = [...ledger.todos.keys()];
  const stored = new Map<string, { title: string; completed: boolean; deleted: boolean }>();
  for (let i = 0; i < ids.length; i += 500) {
    const batch = (await Todo.find({ _id: { $in: ids.slice(i, i + 500) } })
      .select("title completed deleted")
      .lean()) as unknown as Array<{
      _id: unknown;
      title: string;
      completed: boolean;
      deleted: boolean;
    }>;
    for (const doc of batch) stored.set(String(doc._id), doc);
  }
  const lost: string[] = [];
  for (const todo of ledger.todos.values()) {
    const doc = stored.get(todo.id);
    if (!doc) {
      lost.push(`${todo.id} (${todo.title}): missing`);
      continue;
    }
    if (todo.uncertain) continue;
    if (
      doc.title !== todo.title ||
      Boolean(doc.completed) !== todo.completed ||
      Boolean(doc.deleted) !== todo.deleted
    ) {
      lost.push(
        `${todo.id}: stored ${JSON.stringify(doc)} but acknowledged ${JSON.stringify(todo)}`,
      );
    }
  }
  const refusedTitles = [...ledger.refusedCreates];
  const storedRefused: string[] = [];
  for (let i = 0; i < refusedTitles.length; i += 500) {
    const found = (await Todo.find({ title: { $in: refusedTitles.slice(i, i + 500) } })
      .select("title")
      .lean()) as unknown as Array<{ title: string }>;
    storedRefused.push(...found.map((doc) => doc.title));
  }
  return { checked: ledger.todos.size, lost, storedRefused, unknown: ledger.unknownCreates.size };
}

async function main(): Promise<number> {
  const db = await startFerretDB();
  const uri = withDatabaseName(db.uri, "soak");
  await connectDatabase(uri);
  // FerretDB 1.x does not isolate concurrent increments of one document over several sockets:
  // as docs/rate-limits-and-audit.md advises, the counters get a connection of their own with one socket.
  const counters =
    STORE === "mongo" ? mongoose.createConnection(uri, { maxPoolSize: 1 }) : undefined;
  await Promise.all(Object.values(mongoose.models).map((model) => model.init()));

  // The test app's routers, without the test hooks that record every call in memory.
  const terreno = new TerrenoApp({
    userModel: User,
    auth: { jwt: { secret: JWT_SECRET } },
    rateLimit: {
      store: counters ? { mongo: counters } : "memory",
      // Every client signs in from this one address: the per-IP auth limit must let them.
      auth: { perIp: { points: 10_000, duration: 60 } },
      writes: { points: POINTS, duration: WINDOW_SECONDS },
      toolCalls: { points: POINTS, duration: WINDOW_SECONDS },
    },
  })
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
    .register(modelRouter(Food, foodOptions()));
  await terreno.rateLimits.ready();
  const app = terreno.build();
  const server = await listen(app);
  const base = server.url;

  const clients: Client[] = [];
  const users = Math.ceil(CLIENTS / CLIENTS_PER_USER);
  for (let u = 0; u < users; u += 1) {
    const email = `soak${u}-${Date.now()}@example.com`;
    const signup = await fetch(`${base}/auth/signup`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email, password: PASSWORD, name: `soak${u}` }),
    });
    if (signup.status !== 201) throw new Error(`signup failed: ${signup.status}`);
    const { token } = ((await signup.json()) as { data: { token: string } }).data;
    if (u === 0) {
      for (const name of ["apple", "bread", "cheese", "dates", "eggs", "figs"]) {
        await send(`${base}/foods`, "POST", { name, calories: 100 }, token);
      }
    }
    // Each client its own session (login), so refresh rotations never race each other.
    for (let c = u * CLIENTS_PER_USER; c < Math.min(CLIENTS, (u + 1) * CLIENTS_PER_USER); c += 1) {
      const login = await fetch(`${base}/auth/login`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email, password: PASSWORD }),
      });
      if (login.status !== 200) throw new Error(`login failed: ${login.status}`);
      const session = ((await login.json()) as { data: { token: string; refreshToken: string } })
        .data;
      clients.push({
        index: c,
        surface: c % 2 === 0 ? "rest" : "mcp",
        token: session.token,
        refreshToken: session.refreshToken,
      });
    }
  }

  const stats: Stats = {
    calls: 0,
    byOperation: {},
    byKind: {},
    others: {},
    otherSamples: [],
    serverErrors: 0,
    latencies: { rest: [], mcp: [] },
  };
  const ledger: Ledger = { todos: new Map(), refusedCreates: new Set(), unknownCreates: new Set() };
  const started = Date.now();
  const deadline = started + SECONDS * 1000;
  process.stdout.write(
    `soak: ${CLIENTS} clients (${clients.filter((c) => c.surface === "rest").length} REST, ${clients.filter((c) => c.surface === "mcp").length} MCP; ${CLIENTS_PER_USER} per user) for ${SECONDS} s, warm-up ${WARMUP_SECONDS} s, rate limits on (store ${STORE === "mongo" ? "mongo, a one-socket connection" : "memory"}, ${POINTS} writes and ${POINTS} tool calls per ${WINDOW_SECONDS} s per user), on ${base}\n`,
  );
  const running = clients.map((client) => runClient(base, client, deadline, stats, ledger));

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
  const verification = await verify(ledger);
  const latency = (surface: Surface) => {
    const sorted = [...stats.latencies[surface]].sort((a, b) => a - b);
    return `${surface} p50 ${percentile(sorted, 50).toFixed(1)} ms, p95 ${percentile(sorted, 95).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${(sorted.at(-1) ?? 0).toFixed(1)} ms`;
  };
  const others = Object.values(stats.others).reduce((a, b) => a + b, 0);

  const lines = [
    `machine: ${os.cpus().length} CPUs, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, node ${process.version}, gc ${gc ? "exposed" : "not exposed"}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
    `duration: ${elapsed.toFixed(1)} s, clients: ${CLIENTS}`,
    `total calls: ${stats.calls} (${(stats.calls / elapsed).toFixed(0)}/s)`,
    `per operation: ${JSON.stringify(stats.byOperation)}`,
    `responses: ok ${stats.byKind.ok ?? 0}, rate_limited (429) ${stats.byKind.rate_limited ?? 0}, other errors ${others} (5xx ${stats.serverErrors})${others ? ` ${JSON.stringify(stats.others)} e.g. ${stats.otherSamples.join(" | ")}` : ""}`,
    `latency: ${latency("rest")}; ${latency("mcp")}`,
    `acknowledged writes: ${verification.checked} todos created and re-read (last acknowledged title/completed/deleted), lost ${verification.lost.length}${verification.lost.length ? ` e.g. ${verification.lost.slice(0, 3).join(" | ")}` : ""}`,
    `refused creates (429): ${ledger.refusedCreates.size}, of which stored: ${verification.storedRefused.length}; creates with an unknown outcome: ${verification.unknown}`,
    `rss after warm-up: ${rssAfterWarmup.toFixed(1)} MB, at the end: ${rssEnd.toFixed(1)} MB, growth: ${growth.toFixed(1)}% (goal < ${MAX_GROWTH_PERCENT}%)`,
    `rss timeline (MB): ${timeline.join(" ")} end=${rssEnd.toFixed(1)}`,
    `todos in the database: ${await Todo.countDocuments()}`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);

  await server.close();
  await counters?.close();
  await mongoose.disconnect();
  await db.stop();

  const failed =
    stats.calls === 0 ||
    others > 0 ||
    verification.lost.length > 0 ||
    verification.storedRefused.length > 0 ||
    growth >= MAX_GROWTH_PERCENT;
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
