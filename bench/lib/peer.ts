/**
 * The upstream @terreno/api 57.4 (bench/peer/server.mjs) as a bench arm, shared by run.ts and
 * prod.ts: its install, its child process, a token it accepts for one of our seeded users, and
 * which MCP request shape (era) it answers.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import jwt from "jsonwebtoken";
import { type McpEra, send, toolCall, toolPayload } from "./mcp.js";
import { type Child, forkChild } from "./processes.js";
import { checkList } from "./setup.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const PEER = path.join(ROOT, "bench", "peer");

/** What @terreno/api reads from its environment; the secrets are fresh for every run. */
const PEER_ENV = {
  TOKEN_SECRET: randomBytes(32).toString("hex"),
  TOKEN_ISSUER: "terreno-bench",
  REFRESH_TOKEN_SECRET: randomBytes(32).toString("hex"),
  SESSION_SECRET: randomBytes(32).toString("hex"),
  DISABLE_LOG_ALL_REQUESTS: "true",
  TERRENO_LOG_FILE: "0",
};

/**
 * Installs bench/peer's dependencies when missing; returns why the peer cannot run, if so. With
 * a lockfile, `npm ci` (which installs exactly it and never rewrites it); without, an install
 * that writes no lockfile. The peer's lockfile is maintained by hand, not by the benchmark.
 */
export function ensurePeerInstalled(log: (line: string) => void): string | undefined {
  if (existsSync(path.join(PEER, "node_modules", "@terreno", "api", "package.json"))) return;
  const locked = existsSync(path.join(PEER, "package-lock.json"));
  const args = locked
    ? ["ci", "--prefix", PEER, "--no-audit", "--no-fund"]
    : ["install", "--prefix", PEER, "--no-audit", "--no-fund", "--no-package-lock"];
  log(`installing bench/peer dependencies (@terreno/api): npm ${args[0]} ...`);
  const result = spawnSync("npm", args, { cwd: ROOT, stdio: "inherit" });
  if (result.status !== 0) {
    return `npm ${args[0]} --prefix bench/peer failed (exit ${result.status ?? result.signal})`;
  }
  return undefined;
}

/** Starts the peer on `uri` (the bench's database: the same collections as ours). */
export function startPeer(uri: string): Promise<Child> {
  return forkChild({
    name: "peer",
    script: path.join(PEER, "server.mjs"),
    cwd: PEER,
    tsx: false,
    // A clean MONGODB_URI and production mode, as for every bench server.
    env: { ...process.env, NODE_ENV: "production", MONGODB_URI: uri, ...PEER_ENV },
  });
}

/** A token @terreno/api accepts for the user `userId` (signed up through ours). */
function peerToken(userId: string): string {
  return jwt.sign({ id: userId }, PEER_ENV.TOKEN_SECRET, {
    issuer: PEER_ENV.TOKEN_ISSUER,
    expiresIn: "6h",
  });
}

/**
 * Which MCP request shape the peer answers, its todos_list checked like ours (20 todos, the
 * owner populated); without one, why not.
 */
async function peerEra(
  base: string,
  token: string,
): Promise<{ era: McpEra } | { problem: string }> {
  const problems: string[] = [];
  for (const era of ["modern", "legacy"] as const) {
    try {
      const response = await send(toolCall(`${base}/mcp`, token, era, "todos_list", { limit: 20 }));
      checkList(toolPayload(response.json), 20, `@terreno/api ${era}`);
      return { era };
    } catch (error) {
      problems.push(`${era}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { problem: `its MCP todos_list did not answer correctly (${problems.join("; ")})` };
}

interface PeerArm {
  child: Child;
  base: string;
  token: string;
  era: McpEra;
}

/**
 * Installs and starts the peer and finds its era; on any failure, says why and stops what it
 * started, so a harness can report the peer as not measurable and carry on without it.
 */
export async function openPeer(
  uri: string,
  userId: string,
  log: (line: string) => void,
): Promise<{ peer: PeerArm; problem?: undefined } | { peer?: undefined; problem: string }> {
  const installProblem = ensurePeerInstalled(log);
  if (installProblem) return { problem: installProblem };
  let child: Child;
  try {
    child = await startPeer(uri);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { problem: `the @terreno/api server did not start: ${why}` };
  }
  const base = `http://127.0.0.1:${child.ports.main}`;
  const token = peerToken(userId);
  const found = await peerEra(base, token);
  if ("problem" in found) {
    await child.stop();
    return { problem: found.problem };
  }
  return { peer: { child, base, token, era: found.era } };
}
