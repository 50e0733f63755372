// Real test databases for terreno-mcp (exported as `terreno-mcp/testing`): uses MONGODB_URI when
// set, otherwise builds FerretDB v1.24.2 once with Go (SQLite backend, cached in .cache/bin) and
// runs it on a free local port.

import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { constants as fsConstants, rmSync } from "node:fs";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MongoClient } from "mongodb";

/** The FerretDB release the harness builds and runs. */
export const FERRETDB_VERSION = "v1.24.2";
const FERRETDB_MODULE = "github.com/FerretDB/FerretDB";

const START_TIMEOUT_MS = 15_000;
const STOP_GRACE_MS = 5_000;
const BUILD_WAIT_TIMEOUT_MS = 15 * 60_000;
const STALE_LOCK_MS = 20 * 60_000;
const OUTPUT_TAIL_BYTES = 16 * 1024;

export type LogFn = (message: string) => void;

export interface EnsureFerretDBBinaryOptions {
  /** Where the built binary is cached. Default: `<package root>/.cache/bin`. */
  cacheDir?: string;
  /** Progress messages. Default: one line on stderr. */
  log?: LogFn;
}

export interface StartFerretDBOptions {
  /** SQLite data directory. Default: a fresh temp dir, deleted by `stop()`. */
  dataDir?: string;
  /** TCP port on 127.0.0.1. Default: a free port. */
  port?: number;
  /** Path to a ferretdb binary. Default: `ensureFerretDBBinary()`. */
  binary?: string;
  /** Passed to `ensureFerretDBBinary()` when `binary` is not given. */
  cacheDir?: string;
  log?: LogFn;
}

export interface RestartOptions {
  /** Runs after the process has stopped and before it starts again (simulates an outage). */
  whileDown?: () => Promise<void> | void;
}

export interface FerretDBServer {
  /** `mongodb://127.0.0.1:<port>/` (no database name). */
  uri: string;
  port: number;
  dataDir: string;
  /** Stops the process (SIGTERM, SIGKILL after 5 s) and deletes `dataDir` if it was created here. */
  stop(): Promise<void>;
  /** Stops and starts again on the same port and data dir, so data persists and clients reconnect. */
  restart(options?: RestartOptions): Promise<void>;
}

export interface TestDatabase {
  /** Connection string that includes `dbName` in its path. */
  uri: string;
  dbName: string;
  /** Set when a private FerretDB was started because MONGODB_URI was not set. */
  server?: FerretDBServer;
  /** Drops the database (shared server) or stops the private server. Safe to call twice. */
  close(): Promise<void>;
}

const defaultLog: LogFn = (message) => {
  process.stderr.write(`${message}\n`);
};

function packageRoot(): string {
  // src/testing/ferretdb.ts and dist/testing/ferretdb.js are both two levels below the root.
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function errorCode(error: unknown): string | undefined {
  if (error instanceof Error && "code" in error && typeof error.code === "string") {
    return error.code;
  }
  return undefined;
}

function lastLines(text: string, count: number): string {
  const lines = text.trimEnd().split("\n");
  return lines.slice(-count).join("\n");
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) return false;
    await fs.access(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Building the binary
// ---------------------------------------------------------------------------------------------

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-OUTPUT_TAIL_BYTES);
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function buildError(reason: string, output?: string): Error {
  let message =
    `FerretDB build failed: ${reason}. ` +
    "Install Go >= 1.24 (or set FERRETDB_BIN to a ferretdb binary), " +
    "or set MONGODB_URI to an existing MongoDB.";
  if (output?.trim()) {
    message += `\n--- last lines of go output ---\n${lastLines(output, 15)}`;
  }
  return new Error(message);
}

/** Copies a module source tree, making everything writable (the Go module cache is read-only). */
async function copyTree(from: string, to: string): Promise<void> {
  await fs.mkdir(to, { recursive: true, mode: 0o755 });
  for (const entry of await fs.readdir(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      await copyTree(source, target);
    } else if (entry.isFile()) {
      await fs.copyFile(source, target);
      await fs.chmod(target, 0o644);
    }
  }
}

async function buildFerretDB(binary: string, cacheDir: string, log: LogFn): Promise<void> {
  log(`terreno-mcp: building FerretDB ${FERRETDB_VERSION} once (about a minute)...`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GOFLAGS: "-buildvcs=false",
    GOWORK: "off",
    GO111MODULE: "on",
    CGO_ENABLED: "0",
  };
  // Always build for this machine, even if the caller's environment is set up to cross-compile.
  delete env.GOOS;
  delete env.GOARCH;
  const goRun = async (args: string[], cwd: string): Promise<RunResult> => {
    try {
      return await run("go", args, { cwd, env });
    } catch (error) {
      if (errorCode(error) === "ENOENT") throw buildError("`go` not found on PATH");
      throw buildError(`could not run go (${(error as Error).message})`);
    }
  };

  const work = await fs.mkdtemp(path.join(cacheDir, ".ferretdb-build-"));
  try {
    // `go install ...@v1.24.2` builds a binary that panics at start-up: the module zip lacks
    // build/version/version.txt. So download the module, copy it, add that file and build there.
    const download = await goRun(
      ["mod", "download", "-json", `${FERRETDB_MODULE}@${FERRETDB_VERSION}`],
      os.tmpdir(),
    );
    let info: { Dir?: unknown; Error?: unknown } = {};
    try {
      info = JSON.parse(download.stdout) as typeof info;
    } catch {
      // not JSON: reported below with go's stderr
    }
    const moduleDir = typeof info.Dir === "string" ? info.Dir : undefined;
    if (download.code !== 0 || !moduleDir) {
      const reason =
        typeof info.Error === "string"
          ? `go mod download failed (${info.Error})`
          : `go mod download ${FERRETDB_MODULE}@${FERRETDB_VERSION} exited with code ${download.code}`;
      throw buildError(reason, download.stderr);
    }

    const source = path.join(work, "src");
    await copyTree(moduleDir, source);
    await fs.writeFile(
      path.join(source, "build", "version", "version.txt"),
      `${FERRETDB_VERSION}\n`,
    );

    const output = path.join(work, "ferretdb");
    const build = await goRun(["build", "-trimpath", "-o", output, "./cmd/ferretdb"], source);
    if (build.code !== 0) {
      throw buildError(`go build exited with code ${build.code}`, build.stderr);
    }

    const check = await run(output, ["--version"], { cwd: work, env: process.env }).catch(
      (error: unknown) => ({ code: -1, stdout: "", stderr: String(error) }),
    );
    if (check.code !== 0 || !check.stdout.includes(FERRETDB_VERSION)) {
      throw buildError(
        "the built binary does not run (`ferretdb --version` failed)",
        `${check.stderr}\n${check.stdout}`,
      );
    }

    await fs.chmod(output, 0o755);
    await fs.rename(output, binary); // atomic: other processes never see a partial binary
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

async function tryCreateLock(lockFile: string): Promise<boolean> {
  try {
    const handle = await fs.open(lockFile, "wx");
    await handle.writeFile(JSON.stringify({ pid: process.pid, host: os.hostname() }));
    await handle.close();
    return true;
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false;
    throw error;
  }
}

async function isStaleLock(lockFile: string): Promise<boolean> {
  let ageMs: number;
  let content: string;
  try {
    ageMs = Date.now() - (await fs.stat(lockFile)).mtimeMs;
    content = await fs.readFile(lockFile, "utf8");
  } catch {
    return false; // gone already: the caller just tries again
  }
  if (ageMs > STALE_LOCK_MS) return true;
  let owner: { pid?: unknown; host?: unknown };
  try {
    owner = JSON.parse(content) as typeof owner;
  } catch {
    return ageMs > 10_000; // half-written by a process that died right after creating it
  }
  if (typeof owner.pid !== "number" || owner.host !== os.hostname()) return false;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (error) {
    return errorCode(error) === "ESRCH";
  }
}

/**
 * Returns the path of a FerretDB binary: `FERRETDB_BIN` if set, else the cached build, building it
 * with `go` the first time. Safe to call from several processes at once.
 */
export async function ensureFerretDBBinary(
  options: EnsureFerretDBBinaryOptions = {},
): Promise<string> {
  const fromEnv = process.env.FERRETDB_BIN;
  if (fromEnv) {
    const resolved = path.resolve(fromEnv);
    if (!(await isExecutableFile(resolved))) {
      throw new Error(
        `FERRETDB_BIN is set to "${fromEnv}", but there is no executable file there. ` +
          "Point it at a ferretdb binary, or unset it to let terreno-mcp build FerretDB.",
      );
    }
    return resolved;
  }

  const log = options.log ?? defaultLog;
  const cacheDir = path.resolve(options.cacheDir ?? path.join(packageRoot(), ".cache", "bin"));
  const binary = path.join(cacheDir, `ferretdb-${FERRETDB_VERSION}`);
  if (await isExecutableFile(binary)) return binary;

  await fs.mkdir(cacheDir, { recursive: true });
  const lockFile = `${binary}.lock`;
  const deadline = Date.now() + BUILD_WAIT_TIMEOUT_MS;
  let announcedWait = false;
  for (;;) {
    if (await isExecutableFile(binary)) return binary;
    if (await tryCreateLock(lockFile)) {
      try {
        if (!(await isExecutableFile(binary))) await buildFerretDB(binary, cacheDir, log);
        return binary;
      } finally {
        await fs.rm(lockFile, { force: true });
      }
    }
    if (await isStaleLock(lockFile)) {
      await fs.rm(lockFile, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out waiting for another process to build FerretDB (lock file ${lockFile}). ` +
          "Delete the lock file if no build is running.",
      );
    }
    if (!announcedWait) {
      log("terreno-mcp: waiting for another process that is building FerretDB...");
      announcedWait = true;
    }
    await sleep(500);
  }
}

// ---------------------------------------------------------------------------------------------
// Running the server
// ---------------------------------------------------------------------------------------------

const liveChildren = new Set<ChildProcess>();
/** Temp data dirs of servers that were never stopped; removed when the process exits. */
const ownedDataDirs = new Set<string>();
let exitHooksInstalled = false;

function killAllAndCleanUp(): void {
  for (const child of liveChildren) child.kill("SIGKILL");
  for (const dir of ownedDataDirs) rmSync(dir, { recursive: true, force: true });
  ownedDataDirs.clear();
}

function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  process.on("exit", killAllAndCleanUp);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const onSignal = (): void => {
      killAllAndCleanUp();
      // If nobody else handles this signal, restore the default behaviour (die by the signal).
      if (process.listenerCount(signal) === 1) {
        process.removeListener(signal, onSignal);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, onSignal);
  }
}

/** Finds a free TCP port on 127.0.0.1 by binding port 0 and closing it again. */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error("could not get a free port"))));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => {
      socket.destroy();
      resolve(false);
    });
  });
}

interface RunningProcess {
  child: ChildProcess;
  exited: Promise<void>;
  exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  output: () => string;
}

function launch(binary: string, args: string[]): RunningProcess {
  const child = spawn(binary, args, {
    env: { ...process.env, DO_NOT_TRACK: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer): void => {
    output = (output + chunk.toString("utf8")).slice(-OUTPUT_TAIL_BYTES);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const running: RunningProcess = {
    child,
    exitInfo: undefined,
    output: () => output,
    exited: new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        running.exitInfo = { code, signal };
        liveChildren.delete(child);
        resolve();
      });
      child.once("error", (error) => {
        collect(Buffer.from(`${error.message}\n`));
        running.exitInfo ??= { code: null, signal: null };
        liveChildren.delete(child);
        resolve();
      });
    }),
  };
  liveChildren.add(child);
  // A forgotten server must not keep the test process alive; the exit hook kills it.
  child.unref();
  for (const stream of [child.stdout, child.stderr]) {
    if (stream instanceof net.Socket) stream.unref();
  }
  return running;
}

function exitWithin(running: RunningProcess, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([running.exited.then(() => true), timeout]).finally(() =>
    clearTimeout(timer),
  );
}

async function terminate(running: RunningProcess): Promise<void> {
  if (running.exitInfo) return;
  running.child.ref(); // keep the event loop alive while we wait for the exit
  running.child.kill("SIGTERM");
  // FerretDB gives connected clients 3 s to disconnect; a second SIGTERM skips that wait
  // (its documented behaviour). Writes already acknowledged are committed to SQLite.
  if (await exitWithin(running, 300)) return;
  running.child.kill("SIGTERM");
  if (await exitWithin(running, STOP_GRACE_MS - 300)) return;
  running.child.kill("SIGKILL");
  await running.exited;
}

async function waitUntilReady(running: RunningProcess, port: number): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  const failure = (reason: string): Error => {
    const tail = lastLines(running.output(), 15);
    return new Error(
      `FerretDB did not start: ${reason}.${tail ? `\n--- last lines of its output ---\n${tail}` : ""}`,
    );
  };
  const exitedReason = (): string => {
    const info = running.exitInfo;
    return info?.signal ? `it was killed by ${info.signal}` : `it exited with code ${info?.code}`;
  };

  while (!(await canConnect(port))) {
    if (running.exitInfo) throw failure(exitedReason());
    if (Date.now() > deadline) {
      await terminate(running);
      throw failure(`port ${port} did not accept connections within ${START_TIMEOUT_MS / 1000} s`);
    }
    await sleep(25);
  }

  const client = new MongoClient(`mongodb://127.0.0.1:${port}/`, {
    serverSelectionTimeoutMS: Math.max(1000, deadline - Date.now()),
    directConnection: true,
  });
  try {
    await client.db("admin").command({ ping: 1 });
  } catch (error) {
    await terminate(running);
    const reason = running.exitInfo ? exitedReason() : `ping failed (${(error as Error).message})`;
    throw failure(reason);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Starts a FerretDB (SQLite backend) on 127.0.0.1 and waits until it answers `ping`. */
export async function startFerretDB(options: StartFerretDBOptions = {}): Promise<FerretDBServer> {
  const binary =
    options.binary ??
    (await ensureFerretDBBinary({ cacheDir: options.cacheDir, log: options.log }));
  const ownsDataDir = options.dataDir === undefined;
  let dataDir: string;
  if (options.dataDir === undefined) {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "terreno-ferretdb-"));
    ownedDataDirs.add(dataDir);
  } else {
    dataDir = path.resolve(options.dataDir);
    await fs.mkdir(dataDir, { recursive: true });
  }
  const port = options.port ?? (await findFreePort());

  const args = [
    "--handler=sqlite",
    `--sqlite-url=file:${dataDir}/`,
    `--listen-addr=127.0.0.1:${port}`,
    "--telemetry=disable",
    "--debug-addr=-",
    `--state-dir=${dataDir}`,
    "--log-level=error",
  ];

  installExitHooks();
  let current: RunningProcess | undefined;
  let stopped = false;

  const startProcess = async (): Promise<void> => {
    const running = launch(binary, args);
    current = running;
    await waitUntilReady(running, port);
  };

  try {
    await startProcess();
  } catch (error) {
    if (ownsDataDir) {
      await fs.rm(dataDir, { recursive: true, force: true });
      ownedDataDirs.delete(dataDir);
    }
    throw error;
  }

  return {
    uri: `mongodb://127.0.0.1:${port}/`,
    port,
    dataDir,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (current) await terminate(current);
      if (ownsDataDir) {
        await fs.rm(dataDir, { recursive: true, force: true });
        ownedDataDirs.delete(dataDir);
      }
    },
    async restart(restartOptions: RestartOptions = {}) {
      if (stopped) throw new Error("FerretDB server was stopped; start a new one instead.");
      if (current) await terminate(current);
      await restartOptions.whileDown?.();
      await startProcess();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Test databases
// ---------------------------------------------------------------------------------------------

/**
 * Returns `uri` with its database path set to `dbName`, keeping hosts, credentials and the query
 * string. If the URI has credentials and no `authSource`, the database it named before (or
 * `admin`) is kept as `authSource`, so authentication still works.
 */
export function withDatabaseName(uri: string, dbName: string): string {
  const scheme = /^mongodb(\+srv)?:\/\//i.exec(uri)?.[0];
  if (!scheme) throw new Error(`Not a MongoDB connection string: ${uri}`);
  const rest = uri.slice(scheme.length);
  const authorityEnd = rest.search(/[/?]/);
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
  let remainder = authorityEnd === -1 ? "" : rest.slice(authorityEnd);
  if (remainder.startsWith("/")) remainder = remainder.slice(1);
  const queryStart = remainder.indexOf("?");
  const oldDb = decodeURIComponent(queryStart === -1 ? remainder : remainder.slice(0, queryStart));
  const query = new URLSearchParams(queryStart === -1 ? "" : remainder.slice(queryStart + 1));
  if (authority.includes("@") && !query.has("authSource")) {
    query.set("authSource", oldDb || "admin");
  }
  const search = query.toString();
  return `${scheme}${authority}/${encodeURIComponent(dbName)}${search ? `?${search}` : ""}`;
}

function uniqueDbName(name: string | undefined): string {
  const base = (name ?? "db").replace(/[^A-Za-z0-9_]/g, "_").slice(0, 24) || "db";
  return `t_${base}_${randomBytes(4).toString("hex")}`;
}

/**
 * Gives a test file its own database. With MONGODB_URI set, a uniquely named database on that
 * server (dropped by `close()`); otherwise a private FerretDB (stopped by `close()`).
 */
export async function createTestDatabase(name?: string): Promise<TestDatabase> {
  const dbName = uniqueDbName(name);
  const sharedUri = process.env.MONGODB_URI;
  let closed = false;

  if (sharedUri) {
    const uri = withDatabaseName(sharedUri, dbName);
    return {
      uri,
      dbName,
      async close() {
        if (closed) return;
        closed = true;
        const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5000 });
        try {
          await client.db(dbName).dropDatabase();
        } finally {
          await client.close();
        }
      },
    };
  }

  const server = await startFerretDB();
  return {
    uri: withDatabaseName(server.uri, dbName),
    dbName,
    server,
    async close() {
      if (closed) return;
      closed = true;
      await server.stop();
    },
  };
}
