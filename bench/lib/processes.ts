/** Child server processes: fork, wait for `ready`, ask for memory, stop. */
import { type ChildProcess, fork } from "node:child_process";
import { readFileSync } from "node:fs";
import type { ChildMessage, MemoryMessage, ParentMessage } from "./ipc.js";

export interface Child {
  name: string;
  process: ChildProcess;
  ports: Record<string, number>;
  /** process.memoryUsage() after a full GC in the child. */
  memory(): Promise<MemoryMessage>;
  /** Resident set size from /proc, without disturbing the child. */
  rss(): number;
  stop(): Promise<void>;
  /** Starts a CPU profile of the child (sampling every `intervalUs`). */
  startProfile(intervalUs: number): Promise<void>;
  /** Stops it and writes the .cpuprofile to `file`. */
  stopProfile(file: string): Promise<string>;
  /** Starts sampling the child's allocations (one sample per `intervalBytes` on average). */
  startHeapProfile(intervalBytes: number): Promise<void>;
  /** Stops it and writes the .heapprofile to `file`. */
  stopHeapProfile(file: string): Promise<string>;
  /** Resolves with the child's `result` message (for one-shot children). */
  result(): Promise<unknown>;
}

export interface ForkOptions {
  name: string;
  script: string;
  cwd?: string;
  env: NodeJS.ProcessEnv;
  /** Extra node flags, e.g. --cpu-prof. `--expose-gc` is always added. */
  execArgv?: string[];
  /** Load TypeScript through tsx. Default true. */
  tsx?: boolean;
  timeoutMs?: number;
}

function waitFor<T extends ChildMessage["type"]>(
  child: ChildProcess,
  name: string,
  type: T,
  timeoutMs: number,
): Promise<Extract<ChildMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`${name}: no ${type} message within ${timeoutMs} ms`));
    }, timeoutMs);
    const onMessage = (message: ChildMessage) => {
      if (message.type === "failed") {
        cleanup();
        reject(new Error(`${name}: ${message.message}`));
      } else if (message.type === type) {
        cleanup();
        resolve(message as Extract<ChildMessage, { type: T }>);
      }
    };
    const onExit = (code: number | null, signal: string | null) => {
      cleanup();
      reject(new Error(`${name} exited (code ${code}, signal ${signal}) before sending ${type}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.off("message", onMessage);
      child.off("exit", onExit);
    };
    child.on("message", onMessage);
    child.once("exit", onExit);
  });
}

export async function forkChild(options: ForkOptions): Promise<Child> {
  const execArgv = [
    ...(options.tsx === false ? [] : ["--import", "tsx"]),
    "--expose-gc",
    ...(options.execArgv ?? []),
  ];
  const child = fork(options.script, [], {
    cwd: options.cwd,
    env: options.env,
    execArgv,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const timeoutMs = options.timeoutMs ?? 120_000;
  const resultPromise = waitFor(child, options.name, "result", 24 * 3600_000).then((m) => m.result);
  resultPromise.catch(() => {});
  const ready = await waitFor(child, options.name, "ready", timeoutMs);
  const request = (message: ParentMessage) => child.send(message);
  return {
    name: options.name,
    process: child,
    ports: ready.ports,
    async memory() {
      const reply = waitFor(child, options.name, "memory", 30_000);
      request({ type: "memory" });
      return reply;
    },
    rss() {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
      return kb * 1024;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      // A one-shot child closes the channel itself and exits on its own.
      if (child.connected) request({ type: "stop" });
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    },
    result: () => resultPromise,
    async startProfile(intervalUs) {
      const started = waitFor(child, options.name, "profiled", 30_000);
      request({ type: "profile-start", intervalUs });
      await started;
    },
    async stopProfile(file) {
      const reply = waitFor(child, options.name, "profiled", 60_000);
      request({ type: "profile-stop", file });
      return (await reply).file;
    },
    async startHeapProfile(intervalBytes) {
      const started = waitFor(child, options.name, "profiled", 30_000);
      request({ type: "heap-start", intervalBytes });
      await started;
    },
    async stopHeapProfile(file) {
      const reply = waitFor(child, options.name, "profiled", 60_000);
      request({ type: "heap-stop", file });
      return (await reply).file;
    },
  };
}
