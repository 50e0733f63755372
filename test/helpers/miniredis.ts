/**
 * A real Redis server for tests: miniredis (github.com/alicebob/miniredis/v2, a Redis server in
 * Go that speaks RESP on a TCP port) behind a tiny main, built once with Go and cached beside the
 * FerretDB binary (~/.cache/terreno-mcp, or $TERRENO_MCP_CACHE_DIR). Key expiry follows the clock,
 * as on a real server (miniredis's `ClockTTL`). Tests only: the package ships no Redis.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { defaultCacheDir } from "../../src/testing/cacheDir.js";
import { findFreePort } from "../../src/testing/ferretdbServer.js";

const MINIREDIS_MODULE = "github.com/alicebob/miniredis/v2";
const MINIREDIS_VERSION = "v2.40.0";

const GO_MOD = `module terreno-mcp/miniredis

go 1.22

require ${MINIREDIS_MODULE} ${MINIREDIS_VERSION}
`;

// Listens on -addr, says so on stdout, and exits when its stdin closes (the test process is
// gone, however it ended) or on a signal.
const MAIN_GO = `package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/alicebob/miniredis/v2"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	flag.Parse()
	m := miniredis.NewMiniRedis()
	m.ClockTTL(true)
	if err := m.StartAddr(*addr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("listening", m.Addr())
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(done)
	}()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	select {
	case <-stop:
	case <-done:
	}
	m.Close()
}
`;

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, output }));
  });
}

/** The cached miniredis binary, built with `go` the first time (about a minute). */
async function ensureMiniredisBinary(): Promise<string> {
  const cacheDir = defaultCacheDir();
  const binary = path.join(cacheDir, `miniredis-${MINIREDIS_VERSION}`);
  try {
    await fs.access(binary, fs.constants.X_OK);
    return binary;
  } catch {
    // not built yet
  }
  await fs.mkdir(cacheDir, { recursive: true });
  const work = await fs.mkdtemp(path.join(cacheDir, ".miniredis-build-"));
  const env = { ...process.env, GOWORK: "off", GOFLAGS: "-mod=mod", CGO_ENABLED: "0" };
  try {
    await fs.writeFile(path.join(work, "go.mod"), GO_MOD);
    await fs.writeFile(path.join(work, "main.go"), MAIN_GO);
    for (const args of [
      ["mod", "tidy"],
      ["build", "-trimpath", "-o", "miniredis", "."],
    ]) {
      const result = await run("go", args, work, env).catch((error: Error) => ({
        code: -1,
        output: error.message,
      }));
      if (result.code !== 0) {
        throw new Error(
          `Could not build miniredis ${MINIREDIS_VERSION} (go ${args.join(" ")}): ${result.output.trim()}`,
        );
      }
    }
    // Atomic: a parallel build or a reader never sees half a binary.
    await fs.rename(path.join(work, "miniredis"), binary);
    return binary;
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

export interface MiniredisServer {
  host: string;
  port: number;
  /** Stops the server; its port then refuses connections. */
  stop(): Promise<void>;
}

/** Starts a miniredis on 127.0.0.1 (a free port unless `port` is given). */
export async function startMiniredis(port?: number): Promise<MiniredisServer> {
  const binary = await ensureMiniredisBinary();
  const listenPort = port ?? (await findFreePort());
  const child: ChildProcess = spawn(binary, ["-addr", `127.0.0.1:${listenPort}`], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.once("line", () => resolve());
    child.once("exit", (code) =>
      reject(new Error(`miniredis exited with code ${code} before listening: ${stderr.trim()}`)),
    );
  });
  return {
    host: "127.0.0.1",
    port: listenPort,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
