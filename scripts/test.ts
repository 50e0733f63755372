// Test runner behind `npm test`: starts one shared FerretDB (unless MONGODB_URI is set), then runs
// node's test runner over test/**/*.test.ts (or the files/dirs given) with bounded concurrency.
// Usage: npm test [-- [node --test flags] [files or dirs]]

import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureFrontendBuilt } from "../example-frontend/build.js";
import {
  ensureFerretDBBinary,
  type FerretDBServer,
  startFerretDB,
} from "../src/testing/ferretdb.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// The consumer apps' tests import the packed package, so they run in their own installs, under
// `npm run test:consumer` (scripts/consumer.ts), never here.
const CONSUMER_APPS = path.join(root, "test", "consumer");

function findTestFiles(target: string): string[] {
  const stat = fs.statSync(target);
  if (stat.isFile()) return [target];
  const found: string[] = [];
  for (const entry of fs.readdirSync(target, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const full = path.join(target, entry.name);
    if (full === CONSUMER_APPS) continue;
    if (entry.isDirectory()) found.push(...findTestFiles(full));
    else if (entry.isFile() && entry.name.endsWith(".test.ts")) found.push(full);
  }
  return found.sort();
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const nodeFlags = args.filter((arg) => arg.startsWith("-"));
  const targets = args.filter((arg) => !arg.startsWith("-"));

  const files: string[] = [];
  for (const target of targets.length > 0 ? targets : [path.join(root, "test")]) {
    if (!fs.existsSync(target)) {
      process.stderr.write(`test runner: no such file or directory: ${target}\n`);
      return 1;
    }
    files.push(...findTestFiles(target));
  }
  if (files.length === 0) {
    process.stderr.write("test runner: no *.test.ts files found\n");
    return 1;
  }

  // The browser tests serve the example's page: build it once here, before suites run side by
  // side, rather than inside a suite while another may be serving it.
  if (files.some((file) => file.includes(`${path.sep}browser${path.sep}`))) {
    const nodeEnv = process.env.NODE_ENV;
    await ensureFrontendBuilt((message) => process.stderr.write(`test runner: ${message}\n`));
    // Every suite inherits this environment: a build that changed NODE_ENV would change them all.
    if (process.env.NODE_ENV !== nodeEnv) {
      throw new Error(`building the example page changed NODE_ENV to ${process.env.NODE_ENV}`);
    }
  }

  const concurrency = Number.parseInt(process.env.TEST_CONCURRENCY ?? "", 10) || 2;
  const env: NodeJS.ProcessEnv = { ...process.env };
  let server: FerretDBServer | undefined;
  if (!env.MONGODB_URI) {
    const binary = await ensureFerretDBBinary();
    const started = Date.now();
    server = await startFerretDB({ binary });
    process.stderr.write(
      `test runner: FerretDB on ${server.uri} (started in ${Date.now() - started} ms)\n`,
    );
    env.MONGODB_URI = server.uri;
    env.FERRETDB_BIN ??= binary;
  }

  try {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "--test",
        `--test-concurrency=${concurrency}`,
        "--test-timeout=120000",
        // spec prints a readable tree and closes with the tests/pass/fail counts.
        ...(nodeFlags.some((f) => f.startsWith("--test-reporter")) ? [] : ["--test-reporter=spec"]),
        ...nodeFlags,
        ...files,
      ],
      { cwd: root, env, stdio: "inherit" },
    );
    const forward = (signal: NodeJS.Signals): void => {
      child.kill(signal);
    };
    process.on("SIGINT", forward);
    process.on("SIGTERM", forward);
    const code = await new Promise<number>((resolve) => {
      child.once("error", (error) => {
        process.stderr.write(`test runner: could not start node: ${error.message}\n`);
        resolve(1);
      });
      child.once("exit", (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
    });
    process.off("SIGINT", forward);
    process.off("SIGTERM", forward);
    return code;
  } finally {
    await server?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `test runner: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  },
);
