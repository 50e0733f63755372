/**
 * `npm run bench:mcp`: a few minutes' look at what an MCP `todos_list` call costs over the floor
 * (servers/floor.ts) and over REST `GET /todos`, without the full `npm run bench`. The floor, REST
 * and MCP (both request shapes) run as interleaved arms of one comparison (lib/compare.ts) on one
 * private FerretDB (or MONGODB_URI); ratios are server CPU per request ÷ the floor's, per round.
 * Prints only; writes nothing but the optional profiles.
 *
 * MCP_BASELINE=<dir> adds "before" arms served from <dir>/src (a copy of src/ taken before a
 * change), in the same rounds, and each current arm's ratio to its own "before" arm.
 * MCP_PROFILE=1 also profiles MCP and REST calls under load and prints the hottest functions
 * (.cache/bench-profiles/{mcp,rest}-overhead.cpuprofile). MCP_ROUNDS, MCP_SECONDS, MCP_CONNECTIONS
 * (default 8, 3, 16) size the run.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase } from "../src/testing/ferretdb.js";
import { type Arm, compare } from "./lib/compare.js";
import { findPid } from "./lib/cpu.js";
import { runLoad } from "./lib/load.js";
import { toolCall } from "./lib/mcp.js";
import { type Child, forkChild } from "./lib/processes.js";
import { summarizeProfile } from "./lib/profile.js";
import {
  mcpListArm,
  prepareBaselineTree,
  restList,
  restListArm,
  seedTodos,
  signUp,
} from "./lib/setup.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ROUNDS = Number(process.env.MCP_ROUNDS ?? 8);
const SECONDS = Number(process.env.MCP_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.MCP_CONNECTIONS ?? 16);
const JWT_SECRET = randomBytes(32).toString("hex");
const FLOOR = "floor";
const log = (line = "") => process.stdout.write(`${line}\n`);
const children: Child[] = [];

async function start(name: string, script: string, root: string, uri: string): Promise<Child> {
  const child = await forkChild({
    name,
    script: path.join(root, "bench", "servers", script),
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "production",
      MONGODB_URI: uri,
      BENCH_JWT_SECRET: JWT_SECRET,
      BENCH_MODEL_COUNTS: "",
    },
  });
  children.push(child);
  return child;
}

const database = await createTestDatabase("bench-mcp");
const baselineTree = process.env.MCP_BASELINE
  ? prepareBaselineTree(process.env.MCP_BASELINE, ROOT)
  : undefined;
try {
  const dbPid = database.server
    ? findPid(`--listen-addr=127.0.0.1:${database.server.port}`)
    : undefined;
  const ours = await start("ours", "ours.ts", ROOT, database.uri);
  const floor = await start("floor", "floor.ts", ROOT, database.uri);
  const before = baselineTree
    ? await start("before", "ours.ts", baselineTree, database.uri)
    : undefined;
  const url = (child: Child) => `http://127.0.0.1:${child.ports.main}`;
  const reader = await signUp(url(ours), "Ada Bench");
  await seedTodos(url(ours), reader, 200);

  const against = { baselines: [FLOOR] };
  const mcp = (child: Child, era: "modern" | "legacy") =>
    toolCall(`${url(child)}/mcp`, reader.token, era, "todos_list", { limit: 20 });
  const arms: Arm[] = [
    { ...restListArm(FLOOR, restList(url(floor), reader.token), floor.process.pid), baselines: [] },
    { ...restListArm("REST", restList(url(ours), reader.token), ours.process.pid), ...against },
    { ...mcpListArm("MCP 2026-07-28", mcp(ours, "modern"), ours.process.pid), ...against },
    { ...mcpListArm("MCP 2025 stateless", mcp(ours, "legacy"), ours.process.pid), ...against },
  ];
  if (before) {
    const pid = before.process.pid;
    arms.push(
      { ...restListArm("before: REST", restList(url(before), reader.token), pid), ...against },
      { ...mcpListArm("before: MCP 2026-07-28", mcp(before, "modern"), pid), ...against },
      { ...mcpListArm("before: MCP 2025 stateless", mcp(before, "legacy"), pid), ...against },
    );
    // Each arm against its own "before" too: one ratio per round, less noisy than two.
    for (const arm of arms.slice(1, 4)) arm.baselines = [FLOOR, `before: ${arm.name}`];
  }
  log(`\ntodos_list, concurrency ${CONNECTIONS}, ${ROUNDS} rounds of ~${SECONDS}s per arm`);
  const result = await compare(
    "mcp-overhead",
    "todos_list against the floor",
    arms,
    { connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS, warmupSeconds: 3, dbPid },
    log,
  );
  log("\nserver CPU/request, per round: median [min–max]");
  for (const r of result.ratios) {
    const s = r.serverCpu;
    const label = `${r.arm} ÷ ${r.baseline}`;
    log(`  ${label.padEnd(52)} ${s.median.toFixed(2)}x [${s.min.toFixed(2)}–${s.max.toFixed(2)}]`);
  }

  if (process.env.MCP_PROFILE === "1") {
    const dir = path.join(ROOT, ".cache", "bench-profiles");
    mkdirSync(dir, { recursive: true });
    const calls = 3000;
    for (const [label, spec] of [
      ["mcp-overhead", mcp(ours, "modern")],
      ["rest-overhead", restList(url(ours), reader.token)],
    ] as const) {
      const file = path.join(dir, `${label}.cpuprofile`);
      await ours.startProfile(100);
      await runLoad(spec, CONNECTIONS, { amount: calls });
      await ours.stopProfile(file);
      const summary = summarizeProfile(file, 25);
      log(
        `\nprofile of ${calls} calls: ${(summary.busyMs / calls).toFixed(2)} ms busy per call (${file})`,
      );
      for (const row of summary.byFunction) {
        log(`  ${(row.share * 100).toFixed(1).padStart(5)}%  ${row.name}`);
      }
    }
  }
} finally {
  for (const child of children) await child.stop().catch(() => {});
  await database.close();
  if (baselineTree) rmSync(baselineTree, { recursive: true, force: true });
}
