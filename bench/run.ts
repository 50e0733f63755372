/**
 * `npm run bench`: what MCP costs over REST and in process, side by side with the upstream
 * @terreno/api, in one run on one machine and one database. Every comparison interleaves its
 * arms (rotating order each round) after a warm-up. Writes bench/RESULTS.md.
 *
 * BENCH_QUICK=1 shrinks the counts about 10x (and the timed rounds) for a smoke run.
 * MONGODB_URI, when set, is used instead of a private FerretDB (a fresh database on it, dropped
 * at the end). BENCH_BASELINE=<dir> adds before/after comparisons against <dir>/src (and token
 * counts against <dir>/example-backend). BENCH_TOKENS_ONLY=1 prints the token counts and stops.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { MongoClient, ObjectId } from "mongodb";
import { createTestDatabase, type TestDatabase } from "../src/testing/ferretdb.js";
import {
  type Arm,
  type Comparison,
  compare,
  type RatioSummary,
  type RunSettings,
} from "./lib/compare.js";
import { findPid } from "./lib/cpu.js";
import { type HttpRequestSpec, runLoad } from "./lib/load.js";
import { describeMachine, loadAverage } from "./lib/machine.js";
import { type McpEra, mcpRequest, send, toolCall, toolPayload } from "./lib/mcp.js";
import { ensurePeerInstalled, openPeer, startPeer } from "./lib/peer.js";
import { type Child, forkChild } from "./lib/processes.js";
import { type ProfileSummary, summarizeProfile } from "./lib/profile.js";
import { comparisonTable, profileTables } from "./lib/report.js";
import {
  checkList,
  mcpListArm,
  prepareBaselineTree,
  restList,
  restListArm,
  seedTodos,
  signUp,
} from "./lib/setup.js";
import { max, median, mib, min, ms, percentile, ratio } from "./lib/stats.js";
import {
  type CatalogTokens,
  catalogSummary,
  catalogTable,
  countCatalog,
  type TokenBaseline,
  toolsOf,
} from "./lib/tokens.js";
import type { InprocResult } from "./servers/inproc.js";
import type { TokensResult } from "./servers/tokens.js";

const QUICK = process.env.BENCH_QUICK === "1";
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BENCH = path.join(ROOT, "bench");
const PROFILES = path.join(ROOT, ".cache", "bench-profiles");
const RESULTS = path.join(BENCH, "RESULTS.md");
const TOKENS_BASELINE = path.join(BENCH, "tokens-baseline.json");
const TOKENS_ONLY = process.env.BENCH_TOKENS_ONLY === "1";

/**
 * Issue #12's targets, and what was measured before the work on it (the same scenarios on this
 * kind of machine), for the result lines that say pass or fail.
 */
const TARGETS = {
  /** MCP todos_list server CPU per request ÷ the floor's. */
  mcpOverFloor: 1.15,
  /** tools/list p50 with 200 registered models, ms. */
  toolsList200P50: 5,
};
const REST_ARM = "REST GET /todos?limit=20";
const MODERN_ARM = "MCP tools/call todos_list (2026-07-28)";
const LEGACY_ARM = "MCP tools/call todos_list (2025 stateless)";
const FLOOR_ARM = "floor: Express 5 + MongoDB driver, GET /todos?limit=20";
const PEER_MCP_ARM = "@terreno/api MCP todos_list";

/** Issue #12's figure for the upstream framework's Todo list tool (another model declaration). */
const UPSTREAM_TODOS_LIST_TOKENS = 401;

const BEFORE = {
  restOverFloor: 1.08,
  mcpOverFloor: 1.25,
  peerMcpOverFloor: 2.82,
  toolsList200P50: 24,
};

/** Durations in seconds, counts in requests. The database sets the pace, so rounds are timed. */
const COUNTS = {
  rounds: QUICK ? 3 : 5,
  seconds: QUICK ? 2 : 5,
  warmupSeconds: QUICK ? 1 : 4,
  toolsListSeconds: QUICK ? 1 : 3,
  inprocSeconds: QUICK ? 0.5 : 4,
  memoryWarmup: QUICK ? 500 : 5000,
  memoryCalls: QUICK ? 5000 : 50_000,
  profileCalls: QUICK ? 200 : 1500,
  seedTodos: 200,
  modelCounts: [1, 20, 200],
};

const JWT_SECRET = randomBytes(32).toString("hex");
const log = (line = "") => process.stdout.write(`${line}\n`);
const children: Child[] = [];

function baseEnv(uri: string): NodeJS.ProcessEnv {
  // Children get a clean MONGODB_URI (with the bench database) and production mode, nothing else
  // from the harness's own settings.
  return { ...process.env, NODE_ENV: "production", MONGODB_URI: uri };
}

/** `root` holds the src/ and bench/ to run: the repo, or a baseline tree (see below). */
async function startOurs(uri: string, name = "ours", root = ROOT): Promise<Child> {
  const child = await forkChild({
    name,
    script: path.join(root, "bench", "servers", "ours.ts"),
    cwd: root,
    env: {
      ...baseEnv(uri),
      BENCH_JWT_SECRET: JWT_SECRET,
      BENCH_MODEL_COUNTS: ["ours", "baseline"].includes(name) ? COUNTS.modelCounts.join(",") : "",
    },
  });
  children.push(child);
  return child;
}

/** The floor: a bare Express 5 route on the MongoDB driver (servers/floor.ts). */
async function startFloor(uri: string): Promise<Child> {
  const child = await forkChild({
    name: "floor",
    script: path.join(BENCH, "servers", "floor.ts"),
    cwd: ROOT,
    env: { ...baseEnv(uri), BENCH_JWT_SECRET: JWT_SECRET },
  });
  children.push(child);
  return child;
}

async function deleteTodosOf(uri: string, userId: string): Promise<number> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5000 });
  try {
    const result = await client
      .db()
      .collection("todos")
      .deleteMany({ ownerId: new ObjectId(userId) });
    return result.deletedCount;
  } finally {
    await client.close();
  }
}

/**
 * The memory scenario's mixed MCP load, sent in turn by every connection: one todos_list
 * (limit 5, owner populated), four todos_read (owner populated) and three tools/list. Mostly
 * cheap database work, so 50,000 calls finish in minutes on FerretDB.
 */
function memoryMix(mcpUrl: string, token: string, todoId: string, era: McpEra): HttpRequestSpec[] {
  const read = toolCall(mcpUrl, token, era, "todos_read", { id: todoId });
  const tools = mcpRequest(mcpUrl, token, era, "tools/list");
  return [
    toolCall(mcpUrl, token, era, "todos_list", { limit: 5 }),
    read,
    tools,
    read,
    tools,
    read,
    tools,
    read,
  ];
}

let dbPid: number | undefined;

function settings(connections: number, seconds = COUNTS.seconds): RunSettings {
  return {
    connections,
    seconds,
    rounds: COUNTS.rounds,
    warmupSeconds: COUNTS.warmupSeconds,
    dbPid,
  };
}

// ---------------------------------------------------------------------------------------------

interface InprocSummary {
  rows: Array<{
    arm: string;
    c1p50: number;
    c1p95: number;
    c16p50: number;
    c16throughput: number;
    cpuPerCall: number;
  }>;
  ratios: Array<{ arm: string; p50: number[]; p95: number[]; throughput: number[]; cpu: number[] }>;
}

function summarizeInproc(result: InprocResult): InprocSummary {
  const arms = ["direct", "execute", "perCall"] as const;
  const rows = arms.map((arm) => {
    const c1 = result[arm].c1.flatMap((r) => r.latencies);
    const c16 = result[arm].c16.flatMap((r) => r.latencies);
    return {
      arm,
      c1p50: percentile(c1, 50),
      c1p95: percentile(c1, 95),
      c16p50: percentile(c16, 50),
      c16throughput: median(result[arm].c16.map((r) => r.throughput)),
      cpuPerCall: median(result[arm].c16.map((r) => r.cpuPerCall)),
    };
  });
  const ratios = (["execute", "perCall"] as const).map((arm) => ({
    arm,
    p50: result[arm].c1.map(
      (r, i) => percentile(r.latencies, 50) / percentile(result.direct.c1[i].latencies, 50),
    ),
    p95: result[arm].c1.map(
      (r, i) => percentile(r.latencies, 95) / percentile(result.direct.c1[i].latencies, 95),
    ),
    throughput: result[arm].c16.map((r, i) => r.throughput / result.direct.c16[i].throughput),
    cpu: result[arm].c16.map((r, i) => r.cpuPerCall / result.direct.c16[i].cpuPerCall),
  }));
  return { rows, ratios };
}

function rangeText(values: number[]): string {
  return `${ratio(median(values))} [${ratio(min(values))}–${ratio(max(values))}]`;
}

// ---------------------------------------------------------------------------------------------

interface MemoryReport {
  name: string;
  calls: number;
  rssAfterWarmup: number;
  rssAfter: number;
  heapAfterWarmup: number;
  heapAfter: number;
  throughput: number;
  failures: number;
}

/** RSS is read from /proc as the load leaves it; heap is measured after a forced full GC. */
async function memoryRun(
  name: string,
  child: Child,
  specs: HttpRequestSpec[],
  calls: number,
): Promise<MemoryReport> {
  await runLoad(specs, 16, { amount: COUNTS.memoryWarmup });
  const rssAfterWarmup = child.rss();
  const warm = await child.memory();
  const result = await runLoad(specs, 16, { amount: calls });
  const rssAfter = child.rss();
  const after = await child.memory();
  return {
    name,
    calls,
    rssAfterWarmup,
    rssAfter,
    heapAfterWarmup: warm.heapUsed,
    heapAfter: after.heapUsed,
    throughput: result.throughput,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

// ---------------------------------------------------------------------------------------------

async function profileRun(
  uri: string,
  label: string,
  makeSpec: (child: Child) => HttpRequestSpec,
): Promise<ProfileSummary> {
  const child = await startOurs(uri, `profile-${label}`);
  try {
    const spec = makeSpec(child);
    await runLoad(spec, 16, { seconds: COUNTS.warmupSeconds });
    mkdirSync(PROFILES, { recursive: true });
    const file = path.join(PROFILES, `${label}.cpuprofile`);
    await child.startProfile(100);
    const result = await runLoad(spec, 16, { amount: COUNTS.profileCalls });
    await child.stopProfile(file);
    if (result.non2xx + result.errors + result.timeouts > 0) {
      throw new Error(`profile ${label}: failed requests`);
    }
    return summarizeProfile(file, 12);
  } finally {
    await child.stop();
  }
}

// ---------------------------------------------------------------------------------------------

/** Token counts of the example's and the bench's tool catalogs, as built from `root`'s src/. */
async function measureTokens(root: string, name: string): Promise<TokensResult> {
  const child = await forkChild({
    name,
    script: path.join(root, "bench", "servers", "tokens.ts"),
    cwd: root,
    env: { ...process.env, NODE_ENV: "production" },
  });
  children.push(child);
  const exited = new Promise((resolve) => child.process.once("exit", resolve));
  const result = (await child.result()) as TokensResult;
  // A one-shot child: it closes the channel and exits by itself after its result.
  await exited;
  return result;
}

const TOKEN_CATALOGS = [
  {
    key: "example",
    title: "example-backend: `createExampleApp().toolDefinitions` (todos and foods)",
    short: "example-backend catalog",
    listTool: "todos_list",
  },
  {
    key: "bench",
    title:
      "The bench's todo model (bench/models.ts; the model every load scenario calls; like the example's todo plus a populated owner)",
    short: "bench todo catalog",
    listTool: "todos_list",
  },
  {
    key: "widget",
    title:
      "One generated model of the tools/list scenario (bench/models.ts `syntheticRouters`; 200 of these make the 200-model app)",
    short: "one generated model",
    listTool: "widget000s_list",
  },
] as const;

function gitCommit(dir: string): string | undefined {
  try {
    return execFileSync("git", ["-C", dir, "log", "-1", "--format=%h %s"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    return undefined;
  }
}

/**
 * The token baseline: measured now from BENCH_BASELINE's tree when set, else the figures
 * recorded in bench/tokens-baseline.json (from the commit before issue #12's token work).
 */
async function tokenBaseline(baselineTree: string | undefined): Promise<TokenBaseline | undefined> {
  const dir = process.env.BENCH_BASELINE;
  if (baselineTree && dir) {
    const commit = gitCommit(dir);
    return {
      source: `measured in this run from BENCH_BASELINE=${dir}${commit ? ` (${commit})` : ""}`,
      catalogs: { ...(await measureTokens(baselineTree, "tokens-baseline")) },
    };
  }
  if (!existsSync(TOKENS_BASELINE)) return undefined;
  const recorded = JSON.parse(readFileSync(TOKENS_BASELINE, "utf8")) as TokenBaseline;
  return { ...recorded, source: `recorded in bench/tokens-baseline.json: ${recorded.source}` };
}

interface TokenReport {
  current: TokensResult;
  baseline?: TokenBaseline;
  /** @terreno/api's todo tools from its tools/list, or why not. */
  upstream?: CatalogTokens;
  upstreamProblem?: string;
  /** What terreno-mcp's servers actually sent on tools/list, counted the same way. */
  served: Array<{ label: string; catalog: CatalogTokens; bytes: number; expected?: number }>;
}

/**
 * BENCH_RECORD_TOKEN_BASELINE=1 with BENCH_BASELINE: writes the baseline just measured (and the
 * peer's figures, when it ran) to bench/tokens-baseline.json, for later runs without a baseline.
 */
function recordTokenBaseline(report: TokenReport): void {
  if (process.env.BENCH_RECORD_TOKEN_BASELINE !== "1" || !report.baseline) return;
  const previous = existsSync(TOKENS_BASELINE)
    ? (JSON.parse(readFileSync(TOKENS_BASELINE, "utf8")) as TokenBaseline)
    : undefined;
  const dir = process.env.BENCH_BASELINE ?? "";
  const recorded: TokenBaseline = {
    source: `${gitCommit(dir) ?? dir}, measured ${new Date().toISOString().slice(0, 10)}`,
    catalogs: {
      ...report.baseline.catalogs,
      upstream: report.upstream ?? previous?.catalogs.upstream,
    },
  };
  writeFileSync(TOKENS_BASELINE, `${JSON.stringify(recorded, null, 2)}\n`);
  log(`  wrote ${path.relative(ROOT, TOKENS_BASELINE)}`);
}

function tokenSummary(report: TokenReport): string[] {
  const lines = TOKEN_CATALOGS.flatMap((c) => {
    const current = report.current[c.key];
    if (!current) return [];
    return [catalogSummary(c.short, current, report.baseline?.catalogs[c.key], c.listTool)];
  });
  const theirs = report.upstream?.tools.find((t) => t.name === "todos_list");
  if (theirs) {
    const ours = report.current.bench?.tools.find((t) => t.name === "todos_list");
    const example = report.current.example?.tools.find((t) => t.name === "todos_list");
    lines.push(
      `@terreno/api 57.4.0 todos_list (its own tools/list, on the bench's Todo model as bench/peer/server.mjs declares it, field descriptions included): ${theirs.total} tokens; terreno-mcp's todos_list is ${ours ? ratio(ours.total / theirs.total) : "n/a"} of it on the same model, the example's ${example ? ratio(example.total / theirs.total) : "n/a"}. Issue #12 quoted ${UPSTREAM_TODOS_LIST_TOKENS} for the upstream's Todo list tool, measured on another declaration of the model`,
    );
  } else if (report.upstreamProblem) {
    lines.push(`@terreno/api todos_list: not measured (${report.upstreamProblem})`);
  }
  return lines;
}

function tokenSection(report: TokenReport): string {
  const out = [
    "Each tool costs `JSON.stringify({name, description, inputSchema})` in o200k_base tokens (gpt-tokenizer 4, the GPT-4o/GPT-5 encoding): what every client sends a model for the tool, without the title, output schema and annotations, which clients differ on. The description and the inputSchema are also counted alone. Definitions are built in a child process from the src/ under test, with no database.",
    "",
    `Baseline: ${report.baseline?.source ?? "none (no BENCH_BASELINE and no bench/tokens-baseline.json)"}.`,
    "",
    ...tokenSummary(report).map((line) => `- ${line}`),
  ];
  for (const c of TOKEN_CATALOGS) {
    const current = report.current[c.key];
    if (!current) continue;
    out.push("", `**${c.title}**`, "", ...catalogTable(current, report.baseline?.catalogs[c.key]));
  }
  if (report.upstream) {
    out.push(
      "",
      "**@terreno/api 57.4.0** (bench/peer; its own tools/list over HTTP, the same Todo model as the bench's, counted the same way). Its list tool takes untyped filter values.",
      "",
      ...catalogTable(report.upstream, report.baseline?.catalogs.upstream),
    );
  }
  if (report.served.length > 0) {
    out.push(
      "",
      "**What terreno-mcp's servers sent on tools/list in this run**, counted the same way, against the same definitions built in process (the bench todo catalog; the generated model's times the number of models)",
      "",
      "| app | tools | tokens | tools/list answer | as built in process |",
      "| --- | ---: | ---: | ---: | ---: |",
      ...report.served.map(
        (s) =>
          `| ${s.label} | ${s.catalog.tools.length} | ${s.catalog.total} | ${(s.bytes / 1024).toFixed(1)} KiB | ${s.expected === undefined ? "—" : s.expected === s.catalog.total ? `${s.expected} (same)` : `${s.expected} (differs)`} |`,
      ),
    );
  }
  return out.join("\n");
}

async function main(): Promise<void> {
  const machine = describeMachine();
  const loadAtStart = loadAverage();
  const startedAt = Date.now();
  const command = [
    QUICK ? "BENCH_QUICK=1" : "",
    process.env.MONGODB_URI ? "MONGODB_URI=…" : "",
    process.env.BENCH_BASELINE ? `BENCH_BASELINE=${process.env.BENCH_BASELINE}` : "",
    "npm run bench",
  ]
    .filter(Boolean)
    .join(" ");
  log(
    `terreno-mcp bench (${TOKENS_ONLY ? "tokens only" : QUICK ? "quick" : "full"}) — ${machine.date}`,
  );
  log(
    `${machine.cpuModel}, ${machine.nproc} cores, ${machine.memory}, Node ${machine.node}; load average ${loadAtStart}`,
  );

  if (TOKENS_ONLY) {
    const baselineDir = process.env.BENCH_BASELINE;
    const tree = baselineDir ? prepareBaselineTree(baselineDir, ROOT) : undefined;
    try {
      const report: TokenReport = {
        current: await measureTokens(ROOT, "tokens"),
        baseline: await tokenBaseline(tree),
        served: [],
      };
      log(`\n${tokenSection(report)}`);
      if (tree) recordTokenBaseline(report);
    } finally {
      if (tree) rmSync(tree, { recursive: true, force: true });
    }
    return;
  }

  const peerInstallProblem = ensurePeerInstalled(log);

  const database: TestDatabase = await createTestDatabase("bench");
  const dbDescription = process.env.MONGODB_URI
    ? "MONGODB_URI (a fresh database, dropped afterwards)"
    : "a private FerretDB v1.24.2 (SQLite backend, temporary directory) started by the harness";
  const comparisons: Comparison[] = [];
  let baselineTree: string | undefined;
  const sections: string[] = [];
  const summary: string[] = [];
  const baselineDir = process.env.BENCH_BASELINE;
  try {
    if (database.server) dbPid = findPid(`--listen-addr=127.0.0.1:${database.server.port}`);
    if (baselineDir) baselineTree = prepareBaselineTree(baselineDir, ROOT);
    const baselineCommit = baselineDir ? gitCommit(baselineDir) : undefined;

    // Tokens of the tool catalogs: no database, a child process per src/ tree -----------------
    log("\n[tokens] o200k tokens of the tool catalogs");
    const tokens: TokenReport = {
      current: await measureTokens(ROOT, "tokens"),
      baseline: await tokenBaseline(baselineTree),
      served: [],
    };

    const ours = await startOurs(database.uri);
    const oursPid = ours.process.pid;
    const base = `http://127.0.0.1:${ours.ports.main}`;
    const mcpUrl = `${base}/mcp`;
    log(`ours: ${JSON.stringify(ours.ports)}`);

    const reader = await signUp(base, "Ada Bench");
    const writer = await signUp(base, "Grace Writer");
    await seedTodos(base, reader, COUNTS.seedTodos);
    const firstPage = toolPayload(
      (await send(toolCall(mcpUrl, reader.token, "modern", "todos_list", { limit: 1 }))).json,
    ) as { data: Array<{ id: string }> };
    const readId = firstPage.data[0].id;
    log(`seeded ${COUNTS.seedTodos} todos for ${reader.userId}`);

    // The upstream @terreno/api, when it installs, starts and answers todos_list correctly.
    const opened = peerInstallProblem
      ? { problem: peerInstallProblem }
      : await openPeer(database.uri, reader.userId, log);
    const peer = opened.peer?.child;
    if (peer) {
      children.push(peer);
      log(`peer: ${JSON.stringify(peer.ports)}`);
    }
    const peerProblem = opened.problem;
    const peerEra = opened.peer?.era;
    const peerToken = opened.peer?.token ?? "";
    const peerBase = opened.peer?.base ?? "";
    const peerPid = peer?.process.pid;

    // Tokens of what the servers send on tools/list: ours (the todo app) and the peer's.
    {
      const response = await send(mcpRequest(mcpUrl, reader.token, "modern", "tools/list"));
      tokens.served.push({
        label: "terreno-mcp, the bench's todo app",
        catalog: countCatalog(toolsOf(response.json)),
        bytes: response.bytes,
        expected: tokens.current.bench?.total,
      });
    }
    if (peer && peerEra) {
      try {
        const response = await send(
          mcpRequest(`${peerBase}/mcp`, peerToken, peerEra, "tools/list"),
        );
        tokens.upstream = countCatalog(
          toolsOf(response.json).filter((tool) => tool.name.startsWith("todos_")),
        );
      } catch (error) {
        tokens.upstreamProblem = `its tools/list failed: ${error instanceof Error ? error.message : String(error)}`;
      }
    } else {
      tokens.upstreamProblem = peerProblem ?? "the peer did not run";
    }
    for (const line of tokenSummary(tokens)) log(`  ${line}`);
    if (baselineTree) recordTokenBaseline(tokens);

    // The floor: a bare Express 5 route on the MongoDB driver, same work as REST GET /todos.
    const floor = await startFloor(database.uri);
    const floorPid = floor.process.pid;
    const floorBase = `http://127.0.0.1:${floor.ports.main}`;
    log(`floor: ${JSON.stringify(floor.ports)}`);

    // 1. todos_list over MCP against GET /todos over REST, and both against the floor ---------
    const floorSpec = restList(floorBase, reader.token);
    const floorArm: Arm = {
      name: FLOOR_ARM,
      spec: floorSpec,
      serverPid: floorPid,
      baselines: [],
      // Not just the shape: the floor's answer must be the REST answer, field for field.
      verify: async () => {
        const [mine, theirs] = await Promise.all([
          send(floorSpec),
          send(restList(base, reader.token)),
        ]);
        if (mine.status !== 200) throw new Error(`floor: HTTP ${mine.status}`);
        checkList(mine.json, 20, "floor");
        if (!isDeepStrictEqual(mine.json, theirs.json)) {
          throw new Error(
            `floor: answer differs from REST GET /todos: ${JSON.stringify(mine.json).slice(0, 300)} vs ${JSON.stringify(theirs.json).slice(0, 300)}`,
          );
        }
      },
    };
    for (const connections of [1, 16]) {
      log(`\n[1] todos_list: MCP vs REST vs the floor, concurrency ${connections}`);
      const comparison = await compare(
        `list-c${connections}`,
        "todos_list (limit 20, owner populated): MCP tools/call vs REST GET /todos?limit=20, and both against the floor (a bare Express 5 route on the MongoDB driver) and @terreno/api's MCP",
        [
          {
            ...restListArm(REST_ARM, restList(base, reader.token), oursPid),
            baselines: [FLOOR_ARM],
          },
          {
            ...mcpListArm(
              MODERN_ARM,
              toolCall(mcpUrl, reader.token, "modern", "todos_list", { limit: 20 }),
              oursPid,
            ),
            baselines: [REST_ARM, FLOOR_ARM],
          },
          {
            ...mcpListArm(
              LEGACY_ARM,
              toolCall(mcpUrl, reader.token, "legacy", "todos_list", { limit: 20 }),
              oursPid,
            ),
            baselines: [REST_ARM, FLOOR_ARM],
          },
          floorArm,
          ...(peer && peerEra
            ? [
                {
                  ...mcpListArm(
                    PEER_MCP_ARM,
                    toolCall(`${peerBase}/mcp`, peerToken, peerEra, "todos_list", { limit: 20 }),
                    peerPid,
                  ),
                  baselines: [FLOOR_ARM],
                },
              ]
            : []),
        ],
        settings(connections),
        log,
      );
      comparisons.push(comparison);
    }
    await floor.stop();

    // 2. tools/list latency by number of registered models -----------------------------------
    log("\n[2] tools/list latency by number of registered models (concurrency 1)");
    const toolsListArms: Arm[] = [];
    const toolsListSizes: string[] = [];
    for (const count of COUNTS.modelCounts) {
      const spec = mcpRequest(
        `http://127.0.0.1:${ours.ports[`models${count}`]}/mcp`,
        reader.token,
        "modern",
        "tools/list",
      );
      const response = await send(spec);
      const tools = (response.json as { result?: { tools?: unknown[] } }).result?.tools ?? [];
      if (tools.length !== count * 2) {
        throw new Error(`tools/list for ${count} models: ${tools.length} tools`);
      }
      const catalog = countCatalog(toolsOf(response.json));
      tokens.served.push({
        label: `terreno-mcp, ${count} generated model(s)`,
        catalog,
        bytes: response.bytes,
        expected: tokens.current.widget ? tokens.current.widget.total * count : undefined,
      });
      toolsListSizes.push(
        `${count} model(s): ${tools.length} tools, ${(response.bytes / 1024).toFixed(1)} KiB, ${catalog.total} o200k tokens (name + description + inputSchema)`,
      );
      toolsListArms.push({
        name: `${count} model(s), ${tools.length} tools`,
        spec,
        serverPid: oursPid,
      });
    }
    comparisons.push(
      await compare(
        "tools-list",
        "MCP tools/list by number of registered models (each model: default list+read tools)",
        toolsListArms,
        settings(1, COUNTS.toolsListSeconds),
        log,
      ),
    );

    // Before/after: the same calls against a baseline src/ (BENCH_BASELINE) -------------------
    if (baselineTree) {
      const before = await startOurs(database.uri, "baseline", baselineTree);
      const beforeBase = `http://127.0.0.1:${before.ports.main}`;
      const beforePid = before.process.pid;
      for (const connections of [1, 16]) {
        log(`\n[before/after] todos_list, concurrency ${connections}`);
        comparisons.push(
          await compare(
            `fix-list-c${connections}`,
            `Before/after the src changes (baseline: BENCH_BASELINE): todos_list over MCP (2026-07-28) and REST`,
            [
              mcpListArm(
                "before: MCP todos_list",
                toolCall(`${beforeBase}/mcp`, reader.token, "modern", "todos_list", { limit: 20 }),
                beforePid,
              ),
              mcpListArm(
                "after: MCP todos_list",
                toolCall(mcpUrl, reader.token, "modern", "todos_list", { limit: 20 }),
                oursPid,
              ),
              {
                ...restListArm(
                  "before: REST GET /todos",
                  restList(beforeBase, reader.token),
                  beforePid,
                ),
                baselines: [],
              },
              {
                ...restListArm("after: REST GET /todos", restList(base, reader.token), oursPid),
                baseline: "before: REST GET /todos",
              },
            ],
            settings(connections),
            log,
          ),
        );
      }
      const most = COUNTS.modelCounts.at(-1) ?? 200;
      log(`\n[before/after] tools/list, 1 and ${most} models, concurrency 1`);
      const toolsListOf = (port: number) =>
        mcpRequest(`http://127.0.0.1:${port}/mcp`, reader.token, "modern", "tools/list");
      comparisons.push(
        await compare(
          "fix-tools-list",
          `Before/after the src changes: MCP tools/list, 1 model (no database work but the caller lookup) and ${most} models`,
          [
            {
              name: "before: tools/list",
              spec: toolsListOf(before.ports.models1),
              serverPid: beforePid,
            },
            {
              name: "after: tools/list",
              spec: toolsListOf(ours.ports.models1),
              serverPid: oursPid,
            },
            {
              name: `before: tools/list, ${most} models`,
              spec: toolsListOf(before.ports[`models${most}`]),
              serverPid: beforePid,
              baselines: [],
            },
            {
              name: `after: tools/list, ${most} models`,
              spec: toolsListOf(ours.ports[`models${most}`]),
              serverPid: oursPid,
              baselines: [`before: tools/list, ${most} models`],
            },
          ],
          settings(1, COUNTS.toolsListSeconds),
          log,
        ),
      );
      await before.stop();
    }

    // 5. The upstream @terreno/api: same model, same data, same calls -----------------------
    if (peer && peerEra) {
      const eraLabel = peerEra === "modern" ? "2026-07-28" : "2025 stateless";
      for (const connections of [1, 16]) {
        log(`\n[5] @terreno/api vs terreno-mcp: MCP todos_list, concurrency ${connections}`);
        comparisons.push(
          await compare(
            `peer-c${connections}`,
            `Peer: MCP tools/call todos_list (${eraLabel}, limit 20, owner populated), @terreno/api 57.4.0 vs terreno-mcp; REST GET /todos?limit=20 of both for context`,
            [
              mcpListArm(
                "@terreno/api MCP todos_list",
                toolCall(`${peerBase}/mcp`, peerToken, peerEra, "todos_list", { limit: 20 }),
                peerPid,
              ),
              mcpListArm(
                "terreno-mcp MCP todos_list",
                toolCall(mcpUrl, reader.token, peerEra, "todos_list", { limit: 20 }),
                oursPid,
              ),
              {
                ...restListArm(
                  "@terreno/api REST GET /todos",
                  restList(peerBase, peerToken),
                  peerPid,
                ),
                baselines: [],
              },
              {
                ...restListArm(
                  "terreno-mcp REST GET /todos",
                  restList(base, reader.token),
                  oursPid,
                ),
                baselines: ["@terreno/api REST GET /todos"],
              },
            ],
            settings(connections),
            log,
          ),
        );
      }
    }

    // 4. Write path: todos_create over MCP against POST /todos --------------------------------
    for (const connections of [1, 16]) {
      log(`\n[4] todos_create: MCP vs REST, concurrency ${connections}`);
      const body = { title: "Benchmark write", tags: ["bench"] };
      const restSpec: HttpRequestSpec = {
        url: `${base}/todos`,
        method: "POST",
        headers: { authorization: `Bearer ${writer.token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      };
      const mcpSpec = toolCall(mcpUrl, writer.token, "modern", "todos_create", body);
      comparisons.push(
        await compare(
          `create-c${connections}`,
          "todos_create: MCP tools/call vs REST POST /todos",
          [
            {
              name: "REST POST /todos",
              spec: restSpec,
              serverPid: oursPid,
              verify: async () => {
                const response = await send(restSpec);
                if (response.status !== 201) throw new Error(`REST create: ${response.status}`);
              },
            },
            {
              name: "MCP tools/call todos_create (2026-07-28)",
              spec: mcpSpec,
              serverPid: oursPid,
              verify: async () => {
                const payload = toolPayload((await send(mcpSpec)).json) as {
                  data?: { title?: string };
                };
                if (payload.data?.title !== body.title) throw new Error("MCP create failed");
              },
            },
          ],
          settings(connections),
          log,
        ),
      );
    }

    // The writes must not slow later lists down: FerretDB scans the collection for each find.
    const deleted = await deleteTodosOf(database.uri, writer.userId);
    log(`  removed the ${deleted} todos written by the write scenario`);

    // 3. In process: getMCPTools() execute against the core list() --------------------------
    log("\n[3] in process: getMCPTools().todos_list.execute vs core list()");
    const inproc = await forkChild({
      name: "inproc",
      script: path.join(BENCH, "servers", "inproc.ts"),
      cwd: ROOT,
      env: {
        ...baseEnv(database.uri),
        BENCH_USER_ID: reader.userId,
        BENCH_SECONDS: String(COUNTS.inprocSeconds),
        BENCH_ROUNDS: String(COUNTS.rounds),
      },
    });
    children.push(inproc);
    const inprocSummary = summarizeInproc((await inproc.result()) as InprocResult);
    for (const row of inprocSummary.rows) {
      log(
        `  ${row.arm.padEnd(8)} c1 p50 ${row.c1p50.toFixed(2)} ms  p95 ${row.c1p95.toFixed(2)} ms  c16 ${row.c16throughput.toFixed(0)} calls/s`,
      );
    }
    for (const r of inprocSummary.ratios) {
      log(
        `  ${r.arm} vs direct: p50 ${rangeText(r.p50)}  throughput ${rangeText(r.throughput)}  CPU/call ${rangeText(r.cpu)}`,
      );
    }

    await ours.stop();
    if (peer) await peer.stop();

    // 6. Memory: RSS after many MCP calls against RSS after warm-up ---------------------------
    log(`\n[6] memory: ${COUNTS.memoryCalls} MCP calls (fresh server processes)`);
    const memOurs = await startOurs(database.uri, "memory");
    const memMcp = `http://127.0.0.1:${memOurs.ports.main}/mcp`;
    const memory = await memoryRun(
      "terreno-mcp",
      memOurs,
      memoryMix(memMcp, reader.token, readId, "modern"),
      COUNTS.memoryCalls,
    );
    await memOurs.stop();
    const memories = [memory];
    if (peer && peerEra) {
      const memPeer = await startPeer(database.uri);
      children.push(memPeer);
      const peerMcp = `http://127.0.0.1:${memPeer.ports.main}/mcp`;
      memories.push(
        await memoryRun(
          "@terreno/api 57.4.0",
          memPeer,
          memoryMix(peerMcp, peerToken, readId, peerEra),
          COUNTS.memoryCalls,
        ),
      );
      await memPeer.stop();
    }
    for (const m of memories) {
      log(
        `  ${m.name}: RSS ${mib(m.rssAfterWarmup)} → ${mib(m.rssAfter)}; heap after GC ${mib(m.heapAfterWarmup)} → ${mib(m.heapAfter)}; ${m.throughput.toFixed(0)} req/s, ${m.failures} failed`,
      );
    }

    // Profiles: where the server's CPU goes per call ------------------------------------------
    log(`\n[profile] ${COUNTS.profileCalls} calls each, MCP todos_list and REST GET /todos`);
    const mcpProfile = await profileRun(database.uri, "mcp-todos-list", (child) =>
      toolCall(`http://127.0.0.1:${child.ports.main}/mcp`, reader.token, "modern", "todos_list", {
        limit: 20,
      }),
    );
    const restProfile = await profileRun(database.uri, "rest-todos-list", (child) =>
      restList(`http://127.0.0.1:${child.ports.main}`, reader.token),
    );
    for (const row of mcpProfile.byGroup.slice(0, 8)) {
      log(`  MCP  ${(row.share * 100).toFixed(1).padStart(5)}%  ${row.name}`);
    }

    // ---------------------------------------------------------------------------------------
    const byId = new Map(comparisons.map((c) => [c.id, c]));
    /** The arm's ratios against `baseline` (default: its main baseline). */
    const ratioOf = (id: string, arm: string, baseline?: string) =>
      byId
        .get(id)
        ?.ratios.find((r) => r.arm === arm && (baseline === undefined || r.baseline === baseline));
    const modernArm = MODERN_ARM;
    const cpuPerCall = (id: string, arm: string) =>
      byId.get(id)?.arms.find((a) => a.name === arm)?.serverCpu ?? Number.NaN;
    const legacyArm = LEGACY_ARM;

    // Issue #12's measures: server CPU per request against the floor, tools/list at 200 models.
    const targets: string[] = [];
    const verdict = (value: number, limit: number) =>
      Number.isFinite(value) ? (value <= limit ? "pass" : "fail") : "n/a";
    for (const c of [1, 16]) {
      const floorCpu = cpuPerCall(`list-c${c}`, FLOOR_ARM);
      const rows: Array<[string, string, number | undefined, number | undefined]> = [
        [REST_ARM, "REST GET /todos", BEFORE.restOverFloor, undefined],
        [MODERN_ARM, "MCP todos_list (2026-07-28)", BEFORE.mcpOverFloor, TARGETS.mcpOverFloor],
        [LEGACY_ARM, "MCP todos_list (2025 stateless)", undefined, TARGETS.mcpOverFloor],
        [PEER_MCP_ARM, "@terreno/api 57.4.0 MCP todos_list", BEFORE.peerMcpOverFloor, undefined],
      ];
      for (const [arm, label, before, target] of rows) {
        const r = ratioOf(`list-c${c}`, arm, FLOOR_ARM);
        if (!r) continue;
        targets.push(
          `| ${label} ÷ floor, server CPU/request, concurrency ${c} | ${ratio(r.serverCpu.median)} [${ratio(r.serverCpu.min)}–${ratio(r.serverCpu.max)}] (${ms(cpuPerCall(`list-c${c}`, arm))} vs ${ms(floorCpu)} ms) | ${before ? ratio(before) : "—"} | ${target ? `≤ ${ratio(target)}` : "—"} | ${target ? verdict(r.serverCpu.median, target) : "—"} |`,
        );
      }
    }
    const toolsList200 = byId
      .get("tools-list")
      ?.arms.find((a) => a.name.startsWith(`${COUNTS.modelCounts.at(-1)} model(s)`));
    if (toolsList200) {
      targets.push(
        `| tools/list p50, ${toolsList200.name}, concurrency 1 | ${ms(toolsList200.p50)} ms (p95 ${ms(toolsList200.p95)} ms) | ${BEFORE.toolsList200P50} ms | ≤ ${TARGETS.toolsList200P50} ms | ${verdict(toolsList200.p50, TARGETS.toolsList200P50)} |`,
      );
    }
    for (const c of TOKEN_CATALOGS.slice(0, 2)) {
      const current = tokens.current[c.key];
      const before = tokens.baseline?.catalogs[c.key];
      if (!current) continue;
      const pctOf = (value: number, base?: number) =>
        base ? ` (${((100 * value) / base).toFixed(0)}% of baseline)` : "";
      targets.push(
        `| o200k tokens, ${c.short} (${current.tools.length} tools${before ? `; baseline ${before.tools.length}` : ""}) | ${current.total}${pctOf(current.total, before?.total)} | ${before?.total ?? "—"} | — | — |`,
      );
      if (before) {
        const names = new Set(before.tools.map((t) => t.name));
        const same = current.tools.filter((t) => names.has(t.name));
        if (same.length !== current.tools.length || same.length !== before.tools.length) {
          const sameTotal = same.reduce((sum, t) => sum + t.total, 0);
          const sameBefore = before.tools
            .filter((t) => same.some((s) => s.name === t.name))
            .reduce((sum, t) => sum + t.total, 0);
          targets.push(
            `| o200k tokens, ${c.short}: the ${same.length} tools in both | ${sameTotal}${pctOf(sameTotal, sameBefore)} | ${sameBefore} | — | — |`,
          );
        }
      }
      const list = current.tools.find((t) => t.name === c.listTool);
      const listBefore = before?.tools.find((t) => t.name === c.listTool);
      if (list) {
        targets.push(
          `| o200k tokens, ${c.short}: ${c.listTool} | ${list.total}${pctOf(list.total, listBefore?.total)} | ${listBefore?.total ?? "—"} | — | — |`,
        );
      }
    }
    const upstreamList = tokens.upstream?.tools.find((t) => t.name === "todos_list");
    if (upstreamList) {
      targets.push(
        `| o200k tokens, @terreno/api 57.4.0 todos_list (the bench's model, bench/peer/server.mjs) | ${upstreamList.total} | ${tokens.baseline?.catalogs.upstream?.tools.find((t) => t.name === "todos_list")?.total ?? `${UPSTREAM_TODOS_LIST_TOKENS} (issue #12, another declaration of the model)`} | — | — |`,
      );
    }
    log("\n[targets]");
    for (const line of targets) log(`  ${line}`);
    /** One summary row: p50, p95, throughput and server CPU/request ratios (median of rounds). */
    const ratioRow = (label: string, r: RatioSummary | undefined) => {
      if (r) {
        summary.push(
          `| ${label} | ${ratio(r.p50.median)} | ${ratio(r.p95.median)} | ${ratio(r.throughput.median)} | ${ratio(r.serverCpu.median)} |`,
        );
      }
    };
    for (const c of [1, 16]) {
      ratioRow(
        `todos_list, MCP (2026-07-28) ÷ REST, concurrency ${c}`,
        ratioOf(`list-c${c}`, modernArm),
      );
      ratioRow(
        `todos_list, MCP (2025 stateless) ÷ REST, concurrency ${c}`,
        ratioOf(`list-c${c}`, legacyArm),
      );
    }
    const toolsList = byId.get("tools-list");
    for (const r of toolsList?.ratios ?? []) {
      ratioRow(`tools/list, ${r.arm} ÷ ${r.baseline}`, r);
    }
    const execRatio = inprocSummary.ratios.find((r) => r.arm === "execute");
    if (execRatio) {
      summary.push(
        `| getMCPTools() execute ÷ core list(), in process (CPU: the Node process's own, 16 in flight) | ${ratio(median(execRatio.p50))} | ${ratio(median(execRatio.p95))} | ${ratio(median(execRatio.throughput))} | ${ratio(median(execRatio.cpu))} |`,
      );
    }
    for (const c of [1, 16]) {
      ratioRow(
        `todos_create, MCP ÷ REST, concurrency ${c}`,
        ratioOf(`create-c${c}`, "MCP tools/call todos_create (2026-07-28)"),
      );
    }
    for (const c of [1, 16]) {
      ratioRow(
        `MCP todos_list, terreno-mcp ÷ @terreno/api, concurrency ${c}`,
        ratioOf(`peer-c${c}`, "terreno-mcp MCP todos_list"),
      );
    }
    if (peerProblem) {
      summary.push(`| terreno-mcp vs @terreno/api | not measurable here: ${peerProblem} | | | |`);
    }
    for (const c of [1, 16]) {
      for (const r of byId.get(`fix-list-c${c}`)?.ratios ?? []) {
        if (r.arm.startsWith("after:")) {
          ratioRow(
            `${r.arm.replace("after: ", "")}, after ÷ before the src changes, concurrency ${c}`,
            r,
          );
        }
      }
    }
    for (const r of byId.get("fix-tools-list")?.ratios ?? []) {
      ratioRow(
        `${r.arm.replace("after: ", "").replace(/^tools\/list$/, "tools/list, 1 model")}, after ÷ before the src changes`,
        r,
      );
    }
    const memoryRows = memories.map(
      (m) =>
        `| ${m.name} | ${m.calls} | ${ratio(m.rssAfter / m.rssAfterWarmup)} (${mib(m.rssAfterWarmup)} → ${mib(m.rssAfter)}) | ${mib(m.heapAfterWarmup)} → ${mib(m.heapAfter)} | ${m.failures} |`,
    );

    for (const comparison of comparisons) sections.push(comparisonTable(comparison));

    const minutes = ((Date.now() - startedAt) / 60_000).toFixed(1);
    const inprocTable = [
      `**getMCPTools() in process** — ${COUNTS.rounds} interleaved rounds of ${COUNTS.inprocSeconds} s per arm, sequential calls (c1) then 16 in flight (c16), after warm-up`,
      "",
      "| arm | c1 p50 ms | c1 p95 ms | c16 p50 ms | c16 calls/s | c16 Node CPU ms/call |",
      "| --- | ---: | ---: | ---: | ---: | ---: |",
      ...inprocSummary.rows.map(
        (r) =>
          `| ${r.arm} | ${ms(r.c1p50)} | ${ms(r.c1p95)} | ${ms(r.c16p50)} | ${r.c16throughput.toFixed(0)} | ${ms(r.cpuPerCall)} |`,
      ),
      "",
      "| ratio (per-round median [min–max]) | c1 p50 | c1 p95 | c16 throughput | c16 Node CPU/call |",
      "| --- | ---: | ---: | ---: | ---: |",
      ...inprocSummary.ratios.map(
        (r) =>
          `| ${r.arm} ÷ direct | ${rangeText(r.p50)} | ${rangeText(r.p95)} | ${rangeText(r.throughput)} | ${rangeText(r.cpu)} |`,
      ),
      "",
      '- direct: `list(resource, {user, transport: "ai"}, {limit: 20})` from src/core.',
      "- execute: `getMCPTools({app, user}).todos_list.execute({limit: 20}, {toolCallId, messages})`, tools built once.",
      "- perCall: `getMCPTools({app, user})` rebuilt for every call, then execute.",
    ].join("\n");

    const fixesFile = path.join(BENCH, "FIXES.md");
    const fixes = existsSync(fixesFile) ? readFileSync(fixesFile, "utf8").trim() : "";

    const markdown = [
      "# Benchmark results",
      "",
      "Regenerated by `npm run bench` (bench/run.ts); do not edit by hand.",
      "",
      "## Run",
      "",
      `- Command: \`${command}\`${QUICK ? " (smoke run: counts shrunk ~10x; not for conclusions)" : ""}`,
      `- Date: ${machine.date}; took ${minutes} min`,
      `- Machine: ${machine.cpuModel}, nproc ${machine.nproc}, ${machine.memory} RAM, ${machine.platform}`,
      `- Node ${machine.node}; load average (1/5/15 min) at start ${loadAtStart}, at end ${loadAverage()}. While it runs, the benchmark's own server, database and load generator keep both cores busy (a load of about 2 to 3), so the load during and at the end of the run is mostly its own. Each comparison below records the 1-minute load when it started; that figure includes the load the benchmark itself left from the comparison before, so only a figure well above 3 points at other work on the machine.`,
      `- Database: ${dbDescription}; every scenario ran against it, with ${COUNTS.seedTodos} todos seeded for the reading user`,
      "- Servers: terreno-mcp and @terreno/api each in their own Node process (NODE_ENV=production, no request logging); the load generator (autocannon 9, keep-alive, one request in flight per connection) in the harness process. All share the machine's cores with FerretDB.",
      "- Method: each comparison verifies every arm's answer (before and after), warms each arm up, then runs interleaved rounds (arm order rotates and reverses every round; each round is a fixed number of requests, the arm's warm-up rate times the round length, so every request of a round completes within it). p50/p95 pool all rounds' latencies; throughput is the median of the rounds; server and database CPU per request are read from /proc (user + system time of the server process and of FerretDB over the round, divided by its requests). Ratios are per round (each arm against its baseline arm measured in the same round), reported as median [min–max].",
      "",
      "## Summary",
      "",
      "Ratios are medians of per-round ratios; latency and CPU ratios above 1 and throughput ratios below 1 mean the first-named side is costlier.",
      "",
      "| ratio | p50 | p95 | throughput | server CPU/req |",
      "| --- | ---: | ---: | ---: | ---: |",
      ...summary,
      "",
      "| memory | MCP calls | RSS after ÷ after warm-up | heap after GC, warm-up → after | failed |",
      "| --- | ---: | ---: | ---: | ---: |",
      ...memoryRows,
      "",
      "## Issue #12: the floor, tools/list at 200 models, tokens",
      "",
      'The floor (bench/servers/floor.ts) is a bare Express 5 route on the MongoDB driver, no Mongoose, doing by hand what REST `GET /todos?limit=20` does: the JWT checked with jsonwebtoken (HS256 pinned), the user loaded by id, find + count with the same owner filter, sort and limit, the owner populated with one `$in` query, and the same JSON with `id` for `_id`. Its answer is checked to equal the REST answer field for field, before and after the timed rounds. Its arm runs interleaved with REST and MCP in section 1, on the same database; ratios are per round. "Before" is what was measured before the work on issue #12.',
      "",
      "| measure | this run | before | target | result |",
      "| --- | ---: | ---: | ---: | ---: |",
      ...targets,
      "",
      "## Tool catalog tokens (o200k)",
      "",
      tokenSection(tokens),
      "",
      "## 1. todos_list: MCP vs REST vs the floor",
      "",
      sections.filter((_, i) => comparisons[i].id.startsWith("list-")).join("\n\n"),
      "",
      ...(baselineDir
        ? [
            "## Before/after the src performance changes",
            "",
            `A second server process ran the baseline src/ (BENCH_BASELINE=${baselineDir}${baselineCommit ? `: ${baselineCommit}` : ""}) with this bench/ code, against the same database, interleaved with the current src/ in this run.`,
            "",
            sections.filter((_, i) => comparisons[i].id.startsWith("fix-")).join("\n\n"),
            "",
          ]
        : []),
      "## 2. tools/list by number of registered models",
      "",
      toolsListSizes.map((s) => `- ${s}`).join("\n"),
      "",
      sections.filter((_, i) => comparisons[i].id === "tools-list").join("\n\n"),
      "",
      "## 3. getMCPTools() execute vs the core list()",
      "",
      inprocTable,
      "",
      "## 4. Write path: todos_create",
      "",
      sections.filter((_, i) => comparisons[i].id.startsWith("create-")).join("\n\n"),
      "",
      "## 5. Peer: @terreno/api 57.4.0",
      "",
      peerProblem
        ? `Not measurable here: ${peerProblem}.`
        : [
            `Same Todo/User schemas, the same collections and documents in the same database, the same permissions, owner filter, populate and sort; @terreno/api set up through its public API (bench/peer/server.mjs) with quiet logging. Both answered the ${peerEra === "modern" ? "2026-07-28" : "2025-era stateless"} MCP request shape. @terreno/api answers tools/call with its JSON as text content; terreno-mcp also sends structuredContent.`,
            "",
            sections.filter((_, i) => comparisons[i].id.startsWith("peer-")).join("\n\n"),
          ].join("\n"),
      "",
      "## 6. Memory",
      "",
      `Each server in a fresh process: ${COUNTS.memoryWarmup} warm-up MCP calls, then ${COUNTS.memoryCalls} MCP calls at concurrency 16, each connection cycling through one \`tools/call todos_list {limit: 5}\`, four \`tools/call todos_read\` and three \`tools/list\` (all authenticated, so each includes the JWT check and the user lookup). RSS is read from /proc as the load leaves it; the heap is measured after a forced full GC.`,
      "",
      "| server | calls | req/s | failed | RSS after warm-up | RSS after the calls | RSS ratio | heap after GC, warm-up → after |",
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
      ...memories.map(
        (m) =>
          `| ${m.name} | ${m.calls} | ${m.throughput.toFixed(0)} | ${m.failures} | ${mib(m.rssAfterWarmup)} | ${mib(m.rssAfter)} | ${ratio(m.rssAfter / m.rssAfterWarmup)} | ${mib(m.heapAfterWarmup)} → ${mib(m.heapAfter)} |`,
      ),
      "",
      "## Where an MCP call's CPU goes",
      "",
      `CPU profiles (V8 sampling profiler, 100 µs interval) of a fresh server process over ${COUNTS.profileCalls} calls at concurrency 16, after warm-up. Self time is grouped by the package or project file the function lives in. "Per call" is the row's share of the profile times the server CPU per request measured without the profiler in section 1 (concurrency 16). The profiles are in .cache/bench-profiles/ (open them in Chrome DevTools).`,
      "",
      "### MCP tools/call todos_list",
      "",
      profileTables(mcpProfile, cpuPerCall("list-c16", modernArm)),
      "",
      "### REST GET /todos?limit=20 (for contrast)",
      "",
      profileTables(restProfile, cpuPerCall("list-c16", "REST GET /todos?limit=20")),
      ...(fixes ? ["", fixes] : []),
      "",
    ].join("\n");
    // bench:prod's section (bench/prod.ts, between its markers) is kept above this run's.
    const previous = existsSync(RESULTS) ? readFileSync(RESULTS, "utf8") : "";
    const prodSection = /<!-- prod:start[\s\S]*?<!-- prod:end -->/.exec(previous)?.[0];
    writeFileSync(
      RESULTS,
      prodSection ? markdown.replace("\n## Run\n", `\n${prodSection}\n\n## Run\n`) : markdown,
    );
    log(`\nwrote ${path.relative(ROOT, RESULTS)} (${minutes} min)`);
    // The rate limiter's overhead (bench/limiter.ts), written into RESULTS.md as its own section.
    if (process.env.BENCH_LIMITER !== "0") {
      const { limiterIntoResults } = await import("./limiter.js");
      await limiterIntoResults({ uri: database.uri, dbPid, log });
    }
  } finally {
    for (const child of children) await child.stop().catch(() => {});
    await database.close();
    if (baselineTree) rmSync(baselineTree, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  async (error) => {
    console.error(error);
    for (const child of children) await child.stop().catch(() => {});
    process.exit(1);
  },
);
