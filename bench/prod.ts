/**
 * `npm run bench:prod` (issue #26): the framework with production settings against the floor, in
 * one interleaved run on one FerretDB. Servers run in child processes; the figure is server CPU
 * per request read from /proc, per round, as median [min–max] of per-round ratios.
 *
 * 1. Main: the floor (servers/floor.ts), REST `GET /todos` and MCP `todos_list` (2026-07-28 and
 *    2025 stateless) of the production app (servers/prod.ts: limits in MongoDB, audit to MongoDB,
 *    helmet, telemetry API with no SDK, chat plugin), and the upstream @terreno/api 57.4's MCP
 *    `todos_list` (bench/peer, lib/peer.ts), at concurrency 1 and 16.
 * 2. Breakdown: the same MCP and REST requests against apps that each switch one feature off or
 *    change it (limiter memory / off / exact mongo, audit off, helmet off, chat off, the
 *    per-caller visibility cache off), each a ratio to the production app in the same rounds.
 * 3. Kept: tools/list at 200 models p50, RSS after 50k calls, getMCPTools() execute ÷ direct,
 *    the chat plugin ÷ a bare streamText route doing the same tool call.
 * 4. Profile (PROD_PROFILE=1, or PROD_LONG=1): CPU profiles of MCP and REST calls on the
 *    production app (top entries), and the bytes each call allocates (V8's sampling heap
 *    profiler, collected objects included).
 *
 * The default run is sized to finish in under 10 minutes on a quiet 2-core machine (issue #26):
 * 3 rounds of about 1.5 s per arm, 10,000 calls for the memory check. PROD_LONG=1 (`npm run
 * bench:prod:long`) is the long run: 5 rounds of 3 s, 50,000 calls, profiles; about 40 minutes.
 * Each size can be set alone: PROD_ROUNDS, PROD_SECONDS, PROD_WARMUP_SECONDS,
 * PROD_MEMORY_CALLS, PROD_PROFILE_CALLS; PROD_SECTIONS (comma list of main,breakdown,kept,profile)
 * picks sections; PROD_PEER=0 leaves the upstream arm out. Writes its section of
 * bench/RESULTS.md between the `prod` markers unless PROD_WRITE=0.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase } from "../src/testing/ferretdb.js";
import { type Arm, type Comparison, compare, type RunSettings } from "./lib/compare.js";
import { findPid } from "./lib/cpu.js";
import { summarizeHeapProfile } from "./lib/heapProfile.js";
import { runLoad } from "./lib/load.js";
import { describeMachine, loadAverage } from "./lib/machine.js";
import { type McpEra, toolCall } from "./lib/mcp.js";
import { openPeer } from "./lib/peer.js";
import { type Child, forkChild } from "./lib/processes.js";
import { summarizeProfile } from "./lib/profile.js";
import { comparisonTable, range } from "./lib/report.js";
import { mcpListArm, restList, restListArm, seedTodos, signUp } from "./lib/setup.js";
import { ms, ratio } from "./lib/stats.js";
import { keptChecks } from "./prodKept.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RESULTS = path.join(ROOT, "bench", "RESULTS.md");
const PROFILES = path.join(ROOT, ".cache", "bench-profiles");
const START_MARKER = "<!-- prod:start (bench/prod.ts) -->";
const END_MARKER = "<!-- prod:end -->";
const LONG = process.env.PROD_LONG === "1";
const sized = (name: string, short: number, long: number) =>
  Number(process.env[name] ?? (LONG ? long : short));
/** Rounds per comparison: 3 is the fewest whose median is not one round's figure. */
const ROUNDS = sized("PROD_ROUNDS", 3, 5);
const SECONDS = sized("PROD_SECONDS", 1.5, 3);
const WARMUP_SECONDS = sized("PROD_WARMUP_SECONDS", 1, 2);
const MEMORY_CALLS = sized("PROD_MEMORY_CALLS", 10_000, 50_000);
const PROFILE_CALLS = sized("PROD_PROFILE_CALLS", 1500, 3000);
const SECTIONS = new Set(
  (process.env.PROD_SECTIONS ?? "main,breakdown,kept").split(",").filter(Boolean),
);
if (process.env.PROD_PROFILE === "1" || (LONG && !process.env.PROD_SECTIONS)) {
  SECTIONS.add("profile");
}
for (const name of SECTIONS) {
  if (!["main", "breakdown", "kept", "profile"].includes(name)) {
    throw new Error(`PROD_SECTIONS: unknown section ${name} (main, breakdown, kept, profile)`);
  }
}
const JWT_SECRET = randomBytes(32).toString("hex");
const TARGETS = { rest: 1.05, mcp: 1.15 };
/** The issue's figures (concurrency 1): ÷ floor, and two releases before. */
const ISSUE = {
  rest: 1.22,
  mcp: 2.05,
  peer: 3.72,
  restBefore: 1.08,
  mcpBefore: 1.25,
  peerBefore: 2.82,
};
const PEER_ARM = "upstream @terreno/api 57.4 MCP todos_list";

const log = (line = "") => process.stdout.write(`${line}\n`);
const children: Child[] = [];
/** Seconds each section took, for the section's header line (the issue bounds the total). */
const took: string[] = [];
async function timed<T>(section: string, run: () => Promise<T>): Promise<T> {
  const t0 = Date.now();
  try {
    return await run();
  } finally {
    const seconds = Math.round((Date.now() - t0) / 1000);
    took.push(`${section} ${seconds} s`);
    log(`[${section}] took ${seconds} s`);
  }
}

async function start(name: string, script: string, uri: string, env = {}): Promise<Child> {
  const child = await forkChild({
    name,
    script: path.join(ROOT, "bench", "servers", script),
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: "production",
      MONGODB_URI: uri,
      BENCH_JWT_SECRET: JWT_SECRET,
      ...env,
    },
  });
  children.push(child);
  return child;
}

function writeSection(section: string): void {
  const current = existsSync(RESULTS) ? readFileSync(RESULTS, "utf8") : "# Benchmark results\n";
  const startAt = current.indexOf(START_MARKER);
  const endAt = current.indexOf(END_MARKER);
  const next =
    startAt !== -1 && endAt > startAt
      ? `${current.slice(0, startAt)}${section}${current.slice(endAt + END_MARKER.length)}`
      : `${current.trimEnd()}\n\n${section}\n`;
  writeFileSync(RESULTS, next);
}

const startedAt = Date.now();
const loadAtStart = loadAverage();
const database = await createTestDatabase("bench_prod");
try {
  const dbPid = database.server
    ? findPid(`--listen-addr=127.0.0.1:${database.server.port}`)
    : undefined;
  const prod = await start("prod", "prod.ts", database.uri);
  const floor = await start("floor", "floor.ts", database.uri);
  const url = (child: Child, port = "main") => `http://127.0.0.1:${child.ports[port]}`;
  const base = (variant: string) => url(prod, variant);
  const reader = await signUp(base("prod"), "Ada Bench");
  await seedTodos(base("prod"), reader, 200);
  log(`prod bench: variants ${Object.keys(prod.ports).join(", ")}; load ${loadAtStart}`);

  const pid = prod.process.pid;
  const mcp = (variant: string, era: McpEra) =>
    toolCall(`${base(variant)}/mcp`, reader.token, era, "todos_list", { limit: 20 });
  const settings = (connections: number): RunSettings => ({
    connections,
    seconds: SECONDS,
    rounds: ROUNDS,
    warmupSeconds: WARMUP_SECONDS,
    dbPid,
  });
  const comparisons: Comparison[] = [];

  // The upstream framework beside ours, on the same database and documents (main only).
  const wantPeer = SECTIONS.has("main") && process.env.PROD_PEER !== "0";
  const opened = wantPeer ? await openPeer(database.uri, reader.userId, log) : undefined;
  const peer = opened?.peer;
  if (peer) children.push(peer.child);
  const peerProblem = wantPeer ? opened?.problem : "left out (PROD_PEER=0)";
  if (opened?.problem) log(`upstream @terreno/api not measured: ${opened.problem}`);

  if (SECTIONS.has("main")) {
    await timed("main", async () => {
      for (const c of [1, 16]) {
        const against = { baselines: ["floor"] };
        const arms: Arm[] = [
          { ...restListArm("floor", restList(url(floor), reader.token), floor.process.pid) },
          { ...restListArm("REST", restList(base("prod"), reader.token), pid), ...against },
          { ...mcpListArm("MCP 2026-07-28", mcp("prod", "modern"), pid), ...against },
          { ...mcpListArm("MCP 2025 stateless", mcp("prod", "legacy"), pid), ...against },
          ...(peer
            ? [
                {
                  ...mcpListArm(
                    PEER_ARM,
                    toolCall(`${peer.base}/mcp`, peer.token, peer.era, "todos_list", {
                      limit: 20,
                    }),
                    peer.child.process.pid,
                  ),
                  ...against,
                },
              ]
            : []),
        ];
        log(`\n[main] concurrency ${c}`);
        comparisons.push(
          await compare(`main-c${c}`, `Production defaults ÷ the floor`, arms, settings(c), log),
        );
      }
    });
    // Idle, but it holds memory and a connection pool: gone before the other sections.
    await peer?.child.stop();
  }

  if (SECTIONS.has("breakdown")) {
    await timed("breakdown", async () => {
      const variants = Object.keys(prod.ports).filter((v) => v !== "prod" && !v.startsWith("aux"));
      for (const [kind, specOf] of [
        ["MCP", (v: string) => mcp(v, "modern")],
        ["REST", (v: string) => restList(base(v), reader.token)],
      ] as const) {
        const arms: Arm[] = [
          (kind === "MCP" ? mcpListArm : restListArm)("prod", specOf("prod"), pid),
          ...variants.map((v) => (kind === "MCP" ? mcpListArm : restListArm)(v, specOf(v), pid)),
        ];
        log(`\n[breakdown] ${kind}, concurrency 16`);
        comparisons.push(
          await compare(
            `breakdown-${kind}`,
            `${kind} todos_list: each variant ÷ production defaults`,
            arms,
            settings(16),
            log,
          ),
        );
      }
    });
  }

  const profiles: string[] = [];
  if (SECTIONS.has("profile")) {
    await timed("profile", async () => {
      mkdirSync(PROFILES, { recursive: true });
      const calls = PROFILE_CALLS;
      for (const [label, spec] of [
        ["prod-mcp", mcp("prod", "modern")],
        ["prod-rest", restList(base("prod"), reader.token)],
      ] as const) {
        const file = path.join(PROFILES, `${label}.cpuprofile`);
        await runLoad(spec, 16, { amount: 500 });
        await prod.startProfile(100);
        await runLoad(spec, 16, { amount: calls });
        await prod.stopProfile(file);
        const summary = summarizeProfile(file, 25);
        const heapFile = path.join(PROFILES, `${label}.heapprofile`);
        await prod.startHeapProfile(4096);
        await runLoad(spec, 16, { amount: calls });
        await prod.stopHeapProfile(heapFile);
        const heap = summarizeHeapProfile(heapFile, 15);
        const kb = (bytes: number) => (bytes / calls / 1024).toFixed(1);
        const lines = [
          `**${label}**: ${calls} calls at concurrency 16, ${(summary.busyMs / calls).toFixed(3)} ms busy per call (profiler on)`,
          "",
          "| hottest functions (self time) | share of busy |",
          "| --- | ---: |",
          ...summary.byFunction.map(
            (row) => `| ${row.name.replace(/\|/g, "\\|")} | ${(row.share * 100).toFixed(1)}% |`,
          ),
          "",
          "| phase (inclusive) | share of busy |",
          "| --- | ---: |",
          ...summary.phases.map((row) => `| ${row.name} | ${(row.share * 100).toFixed(1)}% |`),
          "",
          "| by package / file | share of busy |",
          "| --- | ---: |",
          ...summary.byGroup
            .slice(0, 12)
            .map((row) => `| ${row.name} | ${(row.share * 100).toFixed(1)}% |`),
          "",
          `Allocations: ${kb(heap.totalBytes)} KB per call (${calls} more calls, sampling heap profiler, every 4 KB).`,
          "",
          "| allocated by (self) | KB per call | share |",
          "| --- | ---: | ---: |",
          ...heap.byFunction.map(
            (row) =>
              `| ${row.name.replace(/\|/g, "\\|")} | ${kb(row.bytes)} | ${(row.share * 100).toFixed(1)}% |`,
          ),
          "",
          "| allocated by package / file | KB per call | share |",
          "| --- | ---: | ---: |",
          ...heap.byGroup
            .slice(0, 10)
            .map((row) => `| ${row.name} | ${kb(row.bytes)} | ${(row.share * 100).toFixed(1)}% |`),
        ];
        profiles.push(lines.join("\n"));
        log(`\n${lines.join("\n")}`);
      }
    });
  }

  // A failed check is reported in the section rather than losing the comparisons above.
  const kept = SECTIONS.has("kept")
    ? await timed("kept", () =>
        keptChecks({
          uri: database.uri,
          dbPid,
          prod,
          reader,
          start,
          log,
          sizes: {
            rounds: ROUNDS,
            seconds: SECONDS,
            warmupSeconds: WARMUP_SECONDS,
            memoryCalls: MEMORY_CALLS,
          },
        }).catch((error: unknown) => ({
          section: `**Kept checks failed**: ${error instanceof Error ? error.message : String(error)}`,
        })),
      )
    : undefined;

  // The summary table: each main ratio with its per-round range, and the breakdown.
  const ratioOf = (id: string, arm: string, baseline?: string) =>
    comparisons
      .find((c) => c.id === id)
      ?.ratios.find((r) => r.arm === arm && (!baseline || r.baseline === baseline));
  const cpuOf = (id: string, arm: string) =>
    comparisons.find((c) => c.id === id)?.arms.find((a) => a.name === arm)?.serverCpu;
  const summary: string[] = [];
  for (const c of [1, 16]) {
    const floorCpu = cpuOf(`main-c${c}`, "floor");
    if (floorCpu === undefined) continue;
    for (const [arm, target, issue] of [
      [
        "REST",
        TARGETS.rest,
        c === 1 ? `${ISSUE.rest}× (${ISSUE.restBefore}× two releases ago)` : "—",
      ],
      [
        "MCP 2026-07-28",
        TARGETS.mcp,
        c === 1 ? `${ISSUE.mcp}× (${ISSUE.mcpBefore}× two releases ago)` : "—",
      ],
      ["MCP 2025 stateless", TARGETS.mcp, "—"],
      [
        PEER_ARM,
        undefined,
        c === 1 ? `${ISSUE.peer}× (${ISSUE.peerBefore}× two releases ago)` : "—",
      ],
    ] as const) {
      const r = ratioOf(`main-c${c}`, arm);
      if (!r) continue;
      // The upstream arm is a reference beside ours, with no target of its own.
      const verdict =
        target === undefined ? "reference" : r.serverCpu.median <= target ? "pass" : "FAIL";
      summary.push(
        `| ${arm} ÷ floor, c${c} | ${ms(cpuOf(`main-c${c}`, arm) ?? Number.NaN)} vs ${ms(floorCpu)} | ${range(r.serverCpu)} | ${issue} | ${target === undefined ? "—" : `≤ ${target}×`} | ${verdict} |`,
      );
    }
  }
  if (SECTIONS.has("main") && !peer) {
    summary.push(
      `| ${PEER_ARM} ÷ floor | not measured: ${peerProblem} | | ${ISSUE.peer}× | — | — |`,
    );
  }
  const breakdown: string[] = [];
  for (const kind of ["MCP", "REST"]) {
    const comparison = comparisons.find((c) => c.id === `breakdown-${kind}`);
    for (const r of comparison?.ratios ?? []) {
      const arm = comparison?.arms.find((a) => a.name === r.arm);
      const prodArm = comparison?.arms.find((a) => a.name === "prod");
      breakdown.push(
        `| ${kind} | ${r.arm} | ${ms(prodArm?.serverCpu ?? Number.NaN)} → ${ms(arm?.serverCpu ?? Number.NaN)} | ${range(r.serverCpu)} | ${ratio(1 / r.serverCpu.median)} |`,
      );
    }
  }
  const machine = describeMachine();
  const minutes = ((Date.now() - startedAt) / 60_000).toFixed(1);
  const section = [
    START_MARKER,
    "## Issue #26: production settings (`npm run bench:prod`)",
    "",
    `Written by \`npm run bench:prod\` (bench/prod.ts) on ${machine.date}, took ${minutes} min (${took.join(", ")}; ${LONG ? "PROD_LONG=1" : "default sizes"}): ${machine.cpuModel}, nproc ${machine.nproc}, Node ${machine.node}; load average (1/5/15) at start ${loadAtStart}, at end ${loadAverage()}. The machine was shared with other work during the run (see the load): the figures are server CPU per request from /proc/<pid>/stat of the server child, which the load disturbs far less than latency; latency and throughput are in the tables for completeness only.`,
    "",
    `Apps (bench/servers/prod.ts, one child process): the bench's todo router (bench/models.ts) in a TerrenoApp with production defaults: \`rateLimit: {store: "mongo"}\` (windows widened so nothing is refused), \`auditToMongo()\`, helmet on, telemetry on with \`@opentelemetry/api\` and no SDK registered, \`chatPlugin\` registered (mock model), NODE_ENV=production. The floor (bench/servers/floor.ts, its own child) is Express 5 + the MongoDB driver doing the same work: jsonwebtoken HS256 verification, the user lookup, the same owner filter, sort, limit, projection and populate, and the same JSON shape (checked before and after the rounds). The upstream arm is @terreno/api 57.4 (bench/peer/server.mjs, the same schemas over the same collections and documents, set up through its public API), ${peer ? `answering the ${peer.era === "modern" ? "2026-07-28" : "2025-era stateless"} MCP request shape` : `not measured: ${peerProblem}`}. ${ROUNDS} interleaved rounds of about ${SECONDS} s per arm after ${WARMUP_SECONDS} s of warm-up; ratios are per round, median [min–max] (the range is the noise).`,
    "",
    "| ratio (server CPU/request) | ms/req, arm vs floor | this run: median [min–max] of rounds | issue #26's figure | target | result |",
    "| --- | ---: | ---: | ---: | ---: | --- |",
    ...summary,
    "",
    "**Breakdown** (concurrency 16): the production app against the same app with one feature switched off or changed, in the same interleaved rounds. A ratio below 1 is what the feature costs: `limiterOff` 0.95× means the limiter is 5% of the request.",
    "",
    "| request | variant | server CPU ms/req, prod → variant | variant ÷ prod: median [min–max] | prod ÷ variant |",
    "| --- | --- | ---: | ---: | ---: |",
    ...breakdown,
    "",
    ...(kept ? [kept.section, ""] : []),
    ...(profiles.length ? ["### Profiles (production app)", "", ...profiles, ""] : []),
    "<details><summary>Every comparison</summary>",
    "",
    ...comparisons.flatMap((c) => [comparisonTable(c), ""]),
    "</details>",
    END_MARKER,
  ].join("\n");
  if (process.env.PROD_WRITE !== "0") writeSection(section);
  log(`\n${summary.join("\n")}\n${breakdown.join("\n")}`);
  if (kept) log(`\n${kept.section}`);
  log(`\ndone in ${minutes} min`);
} finally {
  for (const child of children) await child.stop().catch(() => {});
  await database.close();
}
process.exit(0);
