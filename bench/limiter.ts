/**
 * The rate limiter's cost (issue #13): server CPU per request with `rateLimit` on the memory
 * store and on the MongoDB store, against the same app with limits off, for an MCP `tools/call`
 * (`todos_read`, which spends a tool-call point) and a REST write (`POST /todos`, which spends
 * a write point). Target: at most 5% more server CPU per request. Arms run interleaved (see
 * lib/compare.ts) against one child process (servers/limiter.ts) that serves all three apps.
 *
 * `npm run bench:limiter` runs it on its own (a private FerretDB unless MONGODB_URI is set),
 * prints the tables and writes them into bench/RESULTS.md between the `limiter` markers;
 * `npm run bench` runs it at its end through `limiterIntoResults()`. BENCH_QUICK=1 shrinks
 * it; LIMITER_ROUNDS and LIMITER_SECONDS set the rounds and their length.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase } from "../src/testing/ferretdb.js";
import { type Arm, type Comparison, compare, type RunSettings } from "./lib/compare.js";
import { findPid } from "./lib/cpu.js";
import type { HttpRequestSpec } from "./lib/load.js";
import { describeMachine, loadAverage } from "./lib/machine.js";
import { send, toolCall, toolPayload } from "./lib/mcp.js";
import { forkChild } from "./lib/processes.js";
import { comparisonTable, range } from "./lib/report.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RESULTS = path.join(ROOT, "bench", "RESULTS.md");
const QUICK = process.env.BENCH_QUICK === "1";
/** More server CPU per request than limits off, at most (the issue's bound). */
export const MAX_OVERHEAD = 0.05;
const START_MARKER = "<!-- limiter:start (bench/limiter.ts) -->";
const END_MARKER = "<!-- limiter:end -->";
const CONNECTIONS = 8;

export interface LimiterBenchOptions {
  /** The database (with its name) the child server uses. */
  uri: string;
  /** The database process, for its CPU per request. */
  dbPid?: number;
  log: (line: string) => void;
}

export interface LimiterBenchResult {
  comparisons: Comparison[];
  /** `store: overhead` lines, e.g. for a summary. */
  lines: string[];
  /** The RESULTS.md section, markers included. */
  section: string;
  /** Whether every store's own work stayed within MAX_OVERHEAD of every request kind. */
  withinTarget: boolean;
  /** CPU µs per `RateLimits.consume()`, measured directly. */
  direct: Record<"memory" | "mongo", number>;
}

function runSettings(dbPid: number | undefined): RunSettings {
  return {
    connections: CONNECTIONS,
    seconds: Number(process.env.LIMITER_SECONDS ?? (QUICK ? 2 : 5)),
    rounds: Number(process.env.LIMITER_ROUNDS ?? (QUICK ? 3 : 7)),
    warmupSeconds: QUICK ? 1 : 4,
    dbPid,
  };
}

async function postJson(url: string, body: unknown, token?: string) {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { data: Record<string, unknown> };
  if (!response.ok) throw new Error(`POST ${url}: ${response.status} ${JSON.stringify(json)}`);
  return json.data;
}

const pct = (ratio: number) => `${ratio >= 1 ? "+" : ""}${((ratio - 1) * 100).toFixed(1)}%`;

/** CPU time of this process in µs. */
function cpuUs(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

/**
 * The limiter's own work, without HTTP around it: `RateLimits.consume()` (the call every surface
 * makes) in this process, `concurrency` calls in flight, as CPU µs per call. Fine-grained where
 * the A/B rounds are not: their noise on a shared machine is several percent.
 */
async function directCost(uri: string): Promise<Record<"memory" | "mongo", number>> {
  const [{ RateLimits }, { default: mongoose }] = await Promise.all([
    import("../src/ops/rateLimit.js"),
    import("mongoose"),
  ]);
  const quiet = { error() {}, warn() {}, info() {} };
  const wide = { points: 1_000_000_000, duration: 3600 };
  const user = { id: "direct-cost" };
  const measure = async (limits: InstanceType<typeof RateLimits>, calls: number) => {
    for (let i = 0; i < 500; i += 1) await limits.consume({ action: "toolCall", user });
    let left = calls;
    const before = cpuUs();
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (left > 0) {
          left -= 1;
          await limits.consume({ action: "toolCall", user });
        }
      }),
    );
    return (cpuUs() - before) / calls;
  };
  const options = { writes: wide, toolCalls: wide, auth: false } as const;
  const memory = await measure(
    new RateLimits({ ...options, store: "memory" }, quiet),
    QUICK ? 20_000 : 200_000,
  );
  const connection = await mongoose.createConnection(uri).asPromise();
  try {
    const limits = new RateLimits({ ...options, store: { mongo: connection } }, quiet);
    await limits.ready();
    return { memory, mongo: await measure(limits, QUICK ? 2000 : 6000) };
  } finally {
    await connection.close();
  }
}

export async function runLimiterBench(options: LimiterBenchOptions): Promise<LimiterBenchResult> {
  const { log } = options;
  const child = await forkChild({
    name: "limiter",
    script: path.join(ROOT, "bench", "servers", "limiter.ts"),
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: "production",
      MONGODB_URI: options.uri,
      BENCH_JWT_SECRET: randomBytes(32).toString("hex"),
    },
  });
  try {
    const pid = child.process.pid;
    const bases = Object.fromEntries(
      Object.entries(child.ports).map(([name, port]) => [name, `http://127.0.0.1:${port}`]),
    ) as Record<"off" | "memory" | "mongo", string>;
    log(`limiter bench: ${JSON.stringify(child.ports)}`);
    const email = `limiter.${randomBytes(3).toString("hex")}@bench.example`;
    const user = (await postJson(`${bases.off}/auth/signup`, {
      email,
      password: "correct horse battery staple",
      name: "Limiter Bench",
    })) as { token: string };
    const todo = await postJson(
      `${bases.off}/todos`,
      { title: "Read me", tags: ["bench"] },
      user.token,
    );
    const settings = runSettings(options.dbPid);
    const STORES = { memory: "memory store", mongo: "mongo store" } as const;
    const kinds: Array<{
      id: string;
      label: string;
      build: (base: string) => HttpRequestSpec;
      check: (spec: HttpRequestSpec) => Promise<void>;
    }> = [
      {
        id: "mcp",
        label: "MCP tools/call todos_read (2026-07-28)",
        build: (base) =>
          toolCall(`${base}/mcp`, user.token, "modern", "todos_read", { id: todo.id }),
        check: async (spec) => {
          const payload = toolPayload((await send(spec)).json) as { data?: { id?: string } };
          if (payload.data?.id !== todo.id) throw new Error("todos_read answered another todo");
        },
      },
      {
        id: "rest",
        label: "REST POST /todos",
        build: (base) => ({
          url: `${base}/todos`,
          method: "POST",
          headers: { authorization: `Bearer ${user.token}`, "content-type": "application/json" },
          body: JSON.stringify({ title: "Benchmark write", tags: ["bench"] }),
        }),
        check: async (spec) => {
          const response = await send(spec);
          if (response.status !== 201) throw new Error(`POST /todos: ${response.status}`);
        },
      },
    ];

    // One comparison per store, each of two arms (off, on): with two arms every round alternates
    // them, so neither always follows the other (with three, the arm after the costly mongo
    // arm inherits more of its garbage collection and database work).
    const comparisons: Comparison[] = [];
    const requestOf = new Map<string, string>();
    for (const kind of kinds) {
      for (const [store, name] of Object.entries(STORES) as Array<[keyof typeof STORES, string]>) {
        const id = `limiter-${kind.id}-${store}`;
        requestOf.set(id, kind.label);
        log(`\n[limiter] ${kind.label}: limits off vs ${name}, concurrency ${CONNECTIONS}`);
        const arms: Arm[] = (
          [
            ["limits off", bases.off],
            [name, bases[store]],
          ] as const
        ).map(([armName, base]) => {
          const spec = kind.build(base);
          return { name: armName, spec, serverPid: pid, verify: () => kind.check(spec) };
        });
        comparisons.push(
          await compare(
            id,
            `Rate limiter: ${kind.label}, limits off vs \`rateLimit\` on the ${name}`,
            arms,
            settings,
            log,
          ),
        );
      }
    }

    log("\n[limiter] RateLimits.consume() alone, in the harness process");
    const direct = await directCost(options.uri);
    log(
      `  CPU per consume(): memory ${direct.memory.toFixed(1)} µs, mongo ${direct.mongo.toFixed(0)} µs`,
    );

    // Within the target when the limiter's own work (direct) is at most 5% of a request's server
    // CPU with limits off; the A/B median says the same at a coarser grain.
    let withinTarget = true;
    const rows: string[] = [];
    const lines: string[] = [];
    for (const comparison of comparisons) {
      const request = requestOf.get(comparison.id) ?? comparison.id;
      const store = comparison.id.endsWith("-mongo") ? "mongo" : "memory";
      for (const ratio of comparison.ratios) {
        const off = comparison.arms.find((arm) => arm.name === ratio.baseline);
        const on = comparison.arms.find((arm) => arm.name === ratio.arm);
        const share = off ? direct[store] / 1000 / off.serverCpu : Number.NaN;
        const ok = share <= MAX_OVERHEAD;
        withinTarget &&= ok;
        rows.push(
          `| ${request} | ${ratio.arm} | ${off?.serverCpu.toFixed(3)} → ${on?.serverCpu.toFixed(3)} | ${pct(ratio.serverCpu.median)} (${range(ratio.serverCpu)}) | ${direct[store].toFixed(store === "memory" ? 1 : 0)} µs = +${(share * 100).toFixed(store === "memory" ? 2 : 1)}% | ${range(ratio.p50)} | ${on && off ? `${(off.dbCpu || 0).toFixed(3)} → ${(on.dbCpu || 0).toFixed(3)}` : "n/a"} | ${ok ? "pass" : "FAIL"} |`,
        );
        lines.push(
          `${request}, ${ratio.arm}: A/B server CPU/req ${pct(ratio.serverCpu.median)}, direct +${(share * 100).toFixed(2)}% (A/B: ${off && on ? `${(on.serverCpu - off.serverCpu).toFixed(2)} ms server, ${(on.dbCpu - off.dbCpu).toFixed(2)} ms database` : "n/a"})`,
        );
      }
    }
    for (const line of lines) log(`  ${line}`);
    const machine = describeMachine();
    const section = [
      START_MARKER,
      "## Rate limiter overhead",
      "",
      `Written by \`npm run bench:limiter\` (bench/limiter.ts; also run at the end of \`npm run bench\`) on ${machine.date}: ${machine.cpuModel}, nproc ${machine.nproc}, Node ${machine.node}; load average at the end ${loadAverage()}${QUICK ? "; BENCH_QUICK=1 (a smoke run, not for conclusions)" : ""}.`,
      "",
      `One server process (bench/servers/limiter.ts) serves the bench's todo router three times, as TerrenoApps that differ only in \`rateLimit\`: off; \`{store: "memory"}\`; \`{store: "mongo"}\` (counters in the app's MongoDB connection, the \`terreno_rate_limits\` collection). The windows are wide (10⁹ points per hour), so every request is counted and none is refused. One user sends every request, so each counts on one key. Each store is compared with limits off on its own (two arms, so the rounds alternate them evenly), interleaved as lib/compare.ts does: server CPU per request comes from /proc for the round of each arm, and the overhead is the median of the per-round ratios against limits off, measured next to it. The target is at most +${MAX_OVERHEAD * 100}% server CPU per request.`,
      "",
      "Per request, on against off (medians of the rounds):",
      "",
      ...lines.map((line) => `- ${line}`),
      "",
      `The limiter's own work, measured directly: \`RateLimits.consume()\` (the call REST writes, MCP tool calls and getMCPTools() make) ${CONNECTIONS} calls in flight in the harness process, CPU per call: memory store ${direct.memory.toFixed(1)} µs, mongo store ${direct.mongo.toFixed(0)} µs. As a share of a request's server CPU with limits off, that is the "direct" column, and the result (target: at most +${MAX_OVERHEAD * 100}%). The A/B rounds measure the same thing through HTTP, coarser: on a shared machine their per-round noise is several percent either way (ratios below 1 are noise: the limiter adds work, never removes it).`,
      "",
      "Each counted request of the mongo store is one `findOneAndUpdate` on `terreno_rate_limits`: the driver's work in the server process and the update in the database. The memory store counts in the process.",
      "",
      "| request | store | server CPU ms/req, off → on | A/B overhead (median [min–max] of rounds) | direct: consume() CPU, share of off | p50 ratio | database CPU ms/req, off → on | result (≤ +5%) |",
      "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |",
      ...rows,
      "",
      ...comparisons.flatMap((comparison) => [comparisonTable(comparison), ""]),
      END_MARKER,
    ].join("\n");
    return { comparisons, lines, section, withinTarget, direct };
  } finally {
    await child.stop().catch(() => {});
  }
}

/** Puts `section` into RESULTS.md: in place of an earlier one, else at the end. */
export function writeSection(section: string, file = RESULTS): void {
  const current = existsSync(file) ? readFileSync(file, "utf8") : "# Benchmark results\n";
  const start = current.indexOf(START_MARKER);
  const end = current.indexOf(END_MARKER);
  const next =
    start !== -1 && end > start
      ? `${current.slice(0, start)}${section}${current.slice(end + END_MARKER.length)}`
      : `${current.trimEnd()}\n\n${section}\n`;
  writeFileSync(file, next);
}

/** The hook for bench/run.ts: measures and writes the section into RESULTS.md. */
export async function limiterIntoResults(options: LimiterBenchOptions): Promise<void> {
  const result = await runLimiterBench(options);
  writeSection(result.section);
  options.log(`wrote the rate limiter section into ${path.relative(ROOT, RESULTS)}`);
}

async function main(): Promise<number> {
  const log = (line = "") => process.stdout.write(`${line}\n`);
  const database = await createTestDatabase("bench_limiter");
  try {
    const dbPid = database.server
      ? findPid(`--listen-addr=127.0.0.1:${database.server.port}`)
      : undefined;
    log(`terreno-mcp limiter bench — load average ${loadAverage()}`);
    const result = await runLimiterBench({ uri: database.uri, dbPid, log });
    writeSection(result.section);
    log(`\n${result.section}\n`);
    log(
      `limiter overhead ${result.withinTarget ? "within" : "ABOVE"} +${MAX_OVERHEAD * 100}% server CPU/req; wrote ${path.relative(ROOT, RESULTS)}`,
    );
    return 0;
  } finally {
    await database.close();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
