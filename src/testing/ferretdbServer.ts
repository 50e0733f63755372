// Runs a FerretDB process (SQLite backend, 127.0.0.1, free port, telemetry off) that can be
// stopped and restarted on the same port and data, and is killed if this process exits.
import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import mongoose from "mongoose";
import { ensureFerretDBBinary } from "./ferretdbBinary.js";
import { type LogFn, lastLines, OUTPUT_TAIL_BYTES, sleep } from "./processUtils.js";

const START_TIMEOUT_MS = 15_000;
const STOP_GRACE_MS = 5_000;

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

  const client = new mongoose.mongo.MongoClient(`mongodb://127.0.0.1:${port}/`, {
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
