// The consumer lane behind `npm run test:consumer`: packs the package, installs the tarball into
// new apps in a temporary folder (test/consumer/app plus each test/consumer/apps/<name>), and in
// each runs the strict type check and the smoke test, as an adopter's app would.
// Usage: npm run test:consumer [-- [--keep] [--node APP=BIN_DIR ...] [app names]]
//   --keep              leave the temporary folder (its path is printed) to look into
//   --node APP=BIN_DIR  run that app's npm, tsc and tests on the Node in BIN_DIR (CI: Node 22)

import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ensureFerretDBBinary } from "../src/testing/ferretdb.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const consumerDir = path.join(root, "test", "consumer");
const MIN_NODE_MAJOR = 22;

interface Run {
  code: number;
  output: string;
  ms: number;
}

const VERSIONS = `"node@" + process.versions.node + " " + ["terreno-mcp", "mongoose", "ai", "express", "typescript"]
  .map((p) => p + "@" + require(p + "/package.json").version).join(" ")`;

interface Check {
  name: string;
  ok: boolean;
  ms: number;
  note?: string;
}

/** The parent npm's own variables (npm_config_local_prefix and so on) must not steer the apps' npm. */
function cleanEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.toLowerCase().startsWith("npm_")) env[key] = value;
  }
  return { ...env, ...extra };
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const take = (chunk: Buffer) => {
      output += chunk.toString();
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.once("error", (error) => {
      output += `${error.message}\n`;
      resolve({ code: 1, output, ms: Date.now() - started });
    });
    child.once("close", (code, signal) =>
      resolve({ code: code ?? (signal ? 1 : 0), output, ms: Date.now() - started }),
    );
  });
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function log(message: string): void {
  process.stdout.write(`consumer: ${message}\n`);
}

function tail(text: string, lines = 40): string {
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}

/** Copies the shared app source, then the app's own files over it (package.json, its MCP client). */
function layApp(name: string, work: string): string {
  const target = path.join(work, name);
  fs.cpSync(path.join(consumerDir, "app"), target, { recursive: true });
  fs.cpSync(path.join(consumerDir, "apps", name), target, { recursive: true });
  return target;
}

/** The node test runner's closing counts (spec reporter: "ℹ pass 5", "ℹ fail 0"). */
function testCounts(output: string): { pass: number; fail: number } | undefined {
  const pass = /^\S*\s*pass (\d+)$/m.exec(output);
  const fail = /^\S*\s*fail (\d+)$/m.exec(output);
  if (!pass || !fail) return undefined;
  return { pass: Number(pass[1]), fail: Number(fail[1]) };
}

interface PackInfo {
  filename: string;
  size: number;
  entryCount: number;
  files: Array<{ path: string }>;
}

/** `npm pack`, whose prepack script removes dist/ and builds it, as on a fresh clone. */
async function pack(work: string, env: NodeJS.ProcessEnv): Promise<string> {
  const packed = await run("npm", ["pack", "--json", "--pack-destination", work], root, env);
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${tail(packed.output)}`);
  // The output holds the prepack build's banners (stderr) around npm's JSON (stdout).
  const json = packed.output.slice(packed.output.indexOf("["), packed.output.lastIndexOf("]") + 1);
  const [info] = JSON.parse(json) as PackInfo[];
  if (!info) throw new Error("npm pack printed no tarball");
  if (!info.files.some((file) => file.path === "dist/index.js")) {
    throw new Error(
      `npm pack left out dist/index.js (${info.entryCount} files): no prepack build?`,
    );
  }
  log(
    `packed ${info.filename} (${Math.round(info.size / 1024)} kB, ${info.entryCount} files, built by prepack) in ${seconds(packed.ms)}`,
  );
  return path.join(work, info.filename);
}

async function install(appDir: string, tarball: string, env: NodeJS.ProcessEnv): Promise<Run> {
  // As the README says to (`npm install terreno-mcp ...`), with the tarball in the registry's
  // place; --prefer-offline lets npm's cache answer without asking the registry again.
  return run(
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball],
    appDir,
    env,
  );
}

/** One app, start to end; its output is held and printed as one block, as apps run side by side. */
async function checkApp(
  name: string,
  appDir: string,
  tarball: string,
  env: NodeJS.ProcessEnv,
): Promise<{ checks: Check[]; report: string }> {
  const checks: Check[] = [];
  let report = "";
  const say = (message: string) => {
    report += `consumer: ${name}: ${message}\n`;
  };

  const installed = await install(appDir, tarball, env);
  checks.push({ name: `${name}: npm install`, ok: installed.code === 0, ms: installed.ms });
  if (installed.code !== 0) {
    say(`npm install FAILED in ${seconds(installed.ms)}`);
    report += `${tail(installed.output)}\n`;
    checks.push({ name: `${name}: typecheck`, ok: false, ms: 0, note: "not run" });
    checks.push({ name: `${name}: smoke test`, ok: false, ms: 0, note: "not run" });
    return { checks, report };
  }
  const versions = await run("node", ["-p", VERSIONS], appDir, env);
  say(`installed in ${seconds(installed.ms)}: ${versions.output.trim()}`);

  const typecheck = await run("npm", ["run", "--silent", "typecheck"], appDir, env);
  checks.push({ name: `${name}: typecheck`, ok: typecheck.code === 0, ms: typecheck.ms });
  say(`npm run typecheck: ${typecheck.code === 0 ? "ok" : "FAILED"} in ${seconds(typecheck.ms)}`);
  if (typecheck.code !== 0) report += `${tail(typecheck.output, 60)}\n`;

  const smoke = await run("npm", ["test", "--silent"], appDir, env);
  const counts = testCounts(smoke.output);
  const ok = smoke.code === 0 && counts !== undefined && counts.fail === 0 && counts.pass > 0;
  checks.push({
    name: `${name}: smoke test`,
    ok,
    ms: smoke.ms,
    note: counts ? `${counts.pass} passed, ${counts.fail} failed` : "no test counts",
  });
  say(`npm test: ${ok ? "ok" : "FAILED"} in ${seconds(smoke.ms)}`);
  report += `${smoke.output.trimEnd()}\n`;
  return { checks, report };
}

async function main(): Promise<number> {
  const started = Date.now();
  const { values, positionals: wanted } = parseArgs({
    options: { keep: { type: "boolean" }, node: { type: "string", multiple: true } },
    allowPositionals: true,
  });
  const keep = values.keep === true;
  const available = fs.readdirSync(path.join(consumerDir, "apps")).sort();
  const nodeDirs = new Map<string, string>();
  for (const pair of values.node ?? []) {
    const [name = "", dir = ""] = pair.split("=", 2);
    if (!dir || !fs.existsSync(path.join(dir, "node"))) {
      process.stderr.write(`consumer: --node ${pair}: no node binary in "${dir}"\n`);
      return 1;
    }
    nodeDirs.set(name, path.resolve(dir));
  }
  const unknown = [...wanted, ...nodeDirs.keys()].filter((name) => !available.includes(name));
  if (unknown.length > 0) {
    process.stderr.write(
      `consumer: no such app: ${unknown.join(", ")} (${available.join(", ")})\n`,
    );
    return 1;
  }
  const apps = wanted.length > 0 ? wanted : available;

  const major = Number(process.versions.node.split(".")[0]);
  if (major < MIN_NODE_MAJOR) {
    process.stderr.write(
      `consumer: Node ${process.versions.node} is too old: the apps use AI SDK 7, which needs Node >= ${MIN_NODE_MAJOR}\n`,
    );
    return 1;
  }

  const extra: NodeJS.ProcessEnv = {};
  if (!process.env.MONGODB_URI && !process.env.FERRETDB_BIN) {
    // The apps' createTestDatabase() starts FerretDB from this binary (built once, cached).
    extra.FERRETDB_BIN = await ensureFerretDBBinary();
  }
  const env = cleanEnv(extra);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "terreno-consumer-"));
  const checks: Check[] = [];
  try {
    const tarball = await pack(work, env);
    log(`installing, type-checking and testing ${apps.join(", ")}, side by side`);
    const results = await Promise.all(
      apps.map((name) => {
        const nodeDir = nodeDirs.get(name);
        const appEnv = nodeDir ? { ...env, PATH: `${nodeDir}${path.delimiter}${env.PATH}` } : env;
        return checkApp(name, layApp(name, work), tarball, appEnv);
      }),
    );
    for (const result of results) {
      process.stdout.write(`\n${result.report}`);
      checks.push(...result.checks);
    }
  } finally {
    if (keep) log(`kept ${work}`);
    else fs.rmSync(work, { recursive: true, force: true });
  }

  process.stdout.write("\nconsumer lane:\n");
  for (const check of checks) {
    const note = check.note ? ` (${check.note})` : "";
    process.stdout.write(
      `  ${check.ok ? "ok  " : "FAIL"}  ${check.name}${note}  ${seconds(check.ms)}\n`,
    );
  }
  const passed = checks.filter((check) => check.ok).length;
  process.stdout.write(`  total ${seconds(Date.now() - started)}\n`);
  process.stdout.write(`consumer: ${passed} passed, ${checks.length - passed} failed\n`);
  return passed === checks.length ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`consumer: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
