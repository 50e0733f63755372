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
  /** Keep the child's stderr for error messages only, not echoed to this process's stderr. */
  quietStderr?: boolean;
}

/** How much of a child's stderr an error message quotes. */
const STDERR_TAIL = 4000;

/**
 * Watches a child: its stderr (echoed, and the tail kept), and its exit described with that
 * tail, so that every wait on the child can fail with the child's name and last words.
 */
function watch(child: ChildProcess, name: string, quiet: boolean) {
  let tail = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    if (!quiet) process.stderr.write(chunk);
    tail = (tail + chunk.toString("utf8")).slice(-STDERR_TAIL);
  });
  // Without a listener a failed send would be thrown as an unhandled 'error' event (EPIPE);
  // every send here passes a callback, so this only catches what Node reports elsewhere.
  child.on("error", (error) => {
    tail = `${tail}\n[harness] ${error.message}`.slice(-STDERR_TAIL);
  });
  const exited = new Promise<(context: string) => string>((resolve) => {
    child.once("exit", (code, signal) => {
      const describe = () => {
        const said = tail.trim();
        const stderr = said ? `; its stderr ended with:\n${said}` : "; its stderr was empty";
        resolve((context) => `${name} exited (code ${code}, signal ${signal}) ${context}${stderr}`);
      };
      // Let the last of stderr arrive, but never wait on a pipe a grandchild may hold open.
      if (!child.stderr || child.stderr.readableEnded) return describe();
      const timer = setTimeout(describe, 500);
      child.stderr.once("end", () => {
        clearTimeout(timer);
        describe();
      });
    });
  });
  return { exited, isGone: () => child.exitCode !== null || child.signalCode !== null };
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
    stdio: ["ignore", "inherit", "pipe", "ipc"],
  });
  const { name } = options;
  const { exited, isGone } = watch(child, name, options.quietStderr === true);
  /** Once the child has exited: why, in words, with what it was doing (`context`). */
  let gone: ((context: string) => string) | undefined;
  void exited.then((describe) => {
    gone = describe;
  });
  /** Set once the child has sent its result: a one-shot child then closes its channel. */
  let finished = false;

  function waitFor<T extends ChildMessage["type"]>(
    type: T,
    timeoutMs: number,
  ): Promise<Extract<ChildMessage, { type: T }>> {
    return new Promise((resolve, reject) => {
      if (gone) return reject(new Error(gone(`before sending ${type}`)));
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
      let live = true;
      const cleanup = () => {
        live = false;
        clearTimeout(timer);
        child.off("message", onMessage);
      };
      child.on("message", onMessage);
      void exited.then((describe) => {
        if (!live) return;
        cleanup();
        reject(new Error(describe(`before sending ${type}`)));
      });
    });
  }

  /** Sends a request; fails with the child's name (and exit, if known) rather than EPIPE. */
  function request(message: ParentMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const refuse = (why: string) =>
        reject(new Error(gone?.(`so ${message.type} was not sent`) ?? `${name}: ${why}`));
      if (!child.connected) return refuse(`its IPC channel is closed, ${message.type} not sent`);
      child.send(message, (error) =>
        error ? refuse(`${message.type} not sent: ${error.message}`) : resolve(),
      );
    });
  }

  /** Sends `message` and waits for the reply of type `type`, whichever fails first. */
  async function ask<T extends ChildMessage["type"]>(
    message: ParentMessage,
    type: T,
    timeoutMs: number,
  ): Promise<Extract<ChildMessage, { type: T }>> {
    const reply = waitFor(type, timeoutMs);
    reply.catch(() => {});
    await request(message);
    return reply;
  }

  const timeoutMs = options.timeoutMs ?? 120_000;
  const resultPromise = waitFor("result", 24 * 3600_000).then((m) => {
    finished = true;
    return m.result;
  });
  resultPromise.catch(() => {});
  const ready = await waitFor("ready", timeoutMs);
  return {
    name,
    process: child,
    ports: ready.ports,
    memory: () => ask({ type: "memory" }, "memory", 30_000),
    rss() {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
      return kb * 1024;
    },
    async stop() {
      if (isGone()) return;
      // A one-shot child closes its channel after its result and exits on its own; its channel
      // can look open for a moment after the result arrives, and a write then fails (EPIPE).
      if (!finished && child.connected) {
        await request({ type: "stop" }).catch(() => {});
      }
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    },
    result: () => resultPromise,
    async startProfile(intervalUs) {
      await ask({ type: "profile-start", intervalUs }, "profiled", 30_000);
    },
    async stopProfile(file) {
      return (await ask({ type: "profile-stop", file }, "profiled", 60_000)).file;
    },
    async startHeapProfile(intervalBytes) {
      await ask({ type: "heap-start", intervalBytes }, "profiled", 30_000);
    },
    async stopHeapProfile(file) {
      return (await ask({ type: "heap-stop", file }, "profiled", 60_000)).file;
    },
  };
}
