// Builds FerretDB v1.24.2 from source with Go once, caching the binary per user (guarded by a
// lock file so parallel test processes build it only once), and says what it is doing meanwhile.
import { spawn } from "node:child_process";
import { constants as fsConstants } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { CACHE_DIR_ENV, defaultCacheDir } from "./cacheDir.js";
import {
  defaultLog,
  errorCode,
  type LogFn,
  lastLines,
  OUTPUT_TAIL_BYTES,
  sleep,
} from "./processUtils.js";

export const FERRETDB_VERSION = "v1.24.2";
const FERRETDB_MODULE = "github.com/FerretDB/FerretDB";
const BUILD_WAIT_TIMEOUT_MS = 15 * 60_000;
const STALE_LOCK_MS = 20 * 60_000;
/** How often a running build says it is still running. */
const PROGRESS_EVERY_MS = 10_000;
/**
 * A clean build (empty Go caches, module download included) on 2 cores: 1,257 s measured on a
 * machine shared by many busy processes, 183 s reported on a quieter one.
 */
export const BUILD_TIME_ESTIMATE = "3 to 20 minutes on 2 cores";

export interface EnsureFerretDBBinaryOptions {
  /**
   * Where the built binary is cached. Default: `$TERRENO_MCP_CACHE_DIR`, else
   * `$XDG_CACHE_HOME/terreno-mcp`, else `~/.cache/terreno-mcp`.
   */
  cacheDir?: string;
  /** Progress messages. Default: one line on stderr. */
  log?: LogFn;
  /** How often a build reports the elapsed time, in ms. Default 10 s. */
  progressIntervalMs?: number;
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
  options: { cwd: string; env: NodeJS.ProcessEnv; onStderr?: (chunk: string) => void },
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
      options.onStderr?.(chunk);
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The three ways to get a database when FerretDB cannot be built here. */
function waysForward(cacheDir: string): string {
  return [
    "Any one of these works:",
    "  - set MONGODB_URI to a MongoDB (or FerretDB) server, e.g. mongodb://127.0.0.1:27017/;",
    `  - set FERRETDB_BIN to a FerretDB ${FERRETDB_VERSION} binary;`,
    `  - install Go >= 1.24 (https://go.dev/dl/): FerretDB is then built once (${BUILD_TIME_ESTIMATE})`,
    `    and cached in ${cacheDir} (${CACHE_DIR_ENV} moves it).`,
  ].join("\n");
}

function buildError(reason: string, cacheDir: string, output?: string): Error {
  let message = `FerretDB build failed: ${reason}.\n${waysForward(cacheDir)}`;
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

/** Fails at once, naming the ways forward, when there is no `go` to build with. */
async function assertGoAvailable(env: NodeJS.ProcessEnv, cacheDir: string): Promise<void> {
  let result: RunResult;
  try {
    result = await run("go", ["version"], { cwd: os.tmpdir(), env });
  } catch (error) {
    const reason =
      errorCode(error) === "ENOENT"
        ? "`go` is not on PATH"
        : `could not run go (${(error as Error).message})`;
    throw new Error(
      `terreno-mcp/testing needs a database and cannot build FerretDB: ${reason}.\n${waysForward(cacheDir)}`,
    );
  }
  if (result.code !== 0) {
    throw buildError(`\`go version\` exited with code ${result.code}`, cacheDir, result.stderr);
  }
}

/** Logs the step and the elapsed time every `everyMs` until stopped. */
function progressReporter(log: LogFn, everyMs: number) {
  const started = Date.now();
  let step = "starting";
  const elapsed = () => `${Math.round((Date.now() - started) / 1000)} s`;
  const timer = setInterval(() => {
    log(`terreno-mcp: still building FerretDB (${step}), ${elapsed()} elapsed...`);
  }, everyMs);
  timer.unref();
  return {
    step(name: string) {
      step = name;
      log(`terreno-mcp: FerretDB build: ${name} (${elapsed()} elapsed)`);
    },
    elapsed,
    stop: () => clearInterval(timer),
  };
}

async function buildFerretDB(
  binary: string,
  cacheDir: string,
  log: LogFn,
  progressEveryMs: number,
): Promise<void> {
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
  await assertGoAvailable(env, cacheDir);
  log(
    `terreno-mcp: building FerretDB ${FERRETDB_VERSION} with Go, once (${BUILD_TIME_ESTIMATE}); ` +
      `it is cached in ${cacheDir}. Set MONGODB_URI or FERRETDB_BIN to skip this.`,
  );
  const progress = progressReporter(log, progressEveryMs);
  let packages = 0;
  const goRun = async (args: string[], cwd: string): Promise<RunResult> => {
    try {
      // `go build -v` names each package as it compiles it: counted for the progress lines.
      const onStderr = (chunk: string) => {
        packages += chunk.split("\n").filter((line) => line.trim() !== "").length;
      };
      return await run("go", args, { cwd, env, onStderr });
    } catch (error) {
      if (errorCode(error) === "ENOENT") throw buildError("`go` not found on PATH", cacheDir);
      throw buildError(`could not run go (${(error as Error).message})`, cacheDir);
    }
  };

  const work = await fs.mkdtemp(path.join(cacheDir, ".ferretdb-build-"));
  try {
    progress.step(
      `downloading the ${FERRETDB_MODULE}@${FERRETDB_VERSION} module and its dependencies`,
    );
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
      throw buildError(reason, cacheDir, download.stderr);
    }

    const source = path.join(work, "src");
    await copyTree(moduleDir, source);
    await fs.writeFile(
      path.join(source, "build", "version", "version.txt"),
      `${FERRETDB_VERSION}\n`,
    );

    const output = path.join(work, "ferretdb");
    progress.step("compiling (go build)");
    packages = 0;
    const ticker = setInterval(() => {
      if (packages > 0) progress.step(`compiling (go build), ${packages} packages so far`);
    }, progressEveryMs);
    ticker.unref();
    const build = await goRun(
      ["build", "-v", "-trimpath", "-o", output, "./cmd/ferretdb"],
      source,
    ).finally(() => clearInterval(ticker));
    if (build.code !== 0) {
      throw buildError(`go build exited with code ${build.code}`, cacheDir, build.stderr);
    }
    progress.step("checking the built binary");

    const check = await run(output, ["--version"], { cwd: work, env: process.env }).catch(
      (error: unknown) => ({ code: -1, stdout: "", stderr: String(error) }),
    );
    if (check.code !== 0 || !check.stdout.includes(FERRETDB_VERSION)) {
      throw buildError(
        "the built binary does not run (`ferretdb --version` failed)",
        cacheDir,
        `${check.stderr}\n${check.stdout}`,
      );
    }

    await fs.chmod(output, 0o755);
    await fs.rename(output, binary); // atomic: other processes never see a partial binary
    log(`terreno-mcp: built FerretDB in ${progress.elapsed()}; cached at ${binary}`);
  } finally {
    progress.stop();
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
  const cacheDir = path.resolve(options.cacheDir ?? defaultCacheDir());
  const binary = path.join(cacheDir, `ferretdb-${FERRETDB_VERSION}`);
  if (await isExecutableFile(binary)) return binary;

  await fs.mkdir(cacheDir, { recursive: true });
  const lockFile = `${binary}.lock`;
  const deadline = Date.now() + BUILD_WAIT_TIMEOUT_MS;
  const progressEveryMs = options.progressIntervalMs ?? PROGRESS_EVERY_MS;
  const waitStarted = Date.now();
  let lastWaitLog = 0;
  for (;;) {
    if (await isExecutableFile(binary)) return binary;
    if (await tryCreateLock(lockFile)) {
      try {
        if (!(await isExecutableFile(binary))) {
          await buildFerretDB(binary, cacheDir, log, progressEveryMs);
        }
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
    if (Date.now() - lastWaitLog >= progressEveryMs) {
      const waited = Math.round((Date.now() - waitStarted) / 1000);
      log(`terreno-mcp: waiting for another process that is building FerretDB (${waited} s)...`);
      lastWaitLog = Date.now();
    }
    await sleep(500);
  }
}

// ---------------------------------------------------------------------------------------------
// Running the server
// ---------------------------------------------------------------------------------------------
