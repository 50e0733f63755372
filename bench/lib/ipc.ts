/** Messages between the harness and its child processes (over Node's IPC channel). */
import { writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";

interface ReadyMessage {
  type: "ready";
  /** Named listening ports, e.g. `{main: 41234, models1: 41235}`. */
  ports: Record<string, number>;
}

export interface MemoryMessage {
  type: "memory";
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
}

/** The answer to profile-start (`file` empty) and to profile-stop. */
interface ProfiledMessage {
  type: "profiled";
  file: string;
}

interface ResultMessage {
  type: "result";
  result: unknown;
}

interface FailedMessage {
  type: "failed";
  message: string;
}

export type ChildMessage =
  | ReadyMessage
  | MemoryMessage
  | ProfiledMessage
  | ResultMessage
  | FailedMessage;

/**
 * `memory`: reply with process.memoryUsage() after a full GC (children run with --expose-gc).
 * `profile-start`/`profile-stop`: a V8 CPU profile (the format `node --cpu-prof` writes) of just
 * the measured window, written to `file`.
 * `heap-start`/`heap-stop`: V8's sampling heap profile of the window, counting objects the GC
 * already collected too, so its total is what the window allocated (a .heapprofile).
 */
export type ParentMessage =
  | { type: "memory" }
  | { type: "profile-start"; intervalUs: number }
  | { type: "profile-stop"; file: string }
  | { type: "heap-start"; intervalBytes: number }
  | { type: "heap-stop"; file: string }
  | { type: "stop" };

export function send(message: ChildMessage): void {
  process.send?.(message);
}

/** Sends a last message, then closes the channel so a one-shot child can exit. */
export function sendLast(message: ChildMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) return resolve();
    process.send(message, () => {
      process.disconnect?.();
      resolve();
    });
  });
}

/** Answers the harness's requests; `stop` runs `onStop` then exits 0. */
export function serveParentRequests(onStop: () => Promise<void>): void {
  let session: Session | undefined;
  process.on("message", async (message: ParentMessage) => {
    try {
      if (message.type === "memory") {
        (globalThis as { gc?: () => void }).gc?.();
        send({ type: "memory", ...process.memoryUsage() });
      } else if (message.type === "profile-start") {
        session = new Session();
        session.connect();
        await session.post("Profiler.enable");
        await session.post("Profiler.setSamplingInterval", { interval: message.intervalUs });
        await session.post("Profiler.start");
        send({ type: "profiled", file: "" });
      } else if (message.type === "profile-stop") {
        if (!session) throw new Error("profile-stop without profile-start");
        const { profile } = await session.post("Profiler.stop");
        session.disconnect();
        session = undefined;
        await writeFile(message.file, JSON.stringify(profile));
        send({ type: "profiled", file: message.file });
      } else if (message.type === "heap-start") {
        session = new Session();
        session.connect();
        await session.post("HeapProfiler.enable");
        await session.post("HeapProfiler.startSampling", {
          samplingInterval: message.intervalBytes,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        });
        send({ type: "profiled", file: "" });
      } else if (message.type === "heap-stop") {
        if (!session) throw new Error("heap-stop without heap-start");
        const { profile } = await session.post("HeapProfiler.stopSampling");
        session.disconnect();
        session = undefined;
        await writeFile(message.file, JSON.stringify(profile));
        send({ type: "profiled", file: message.file });
      } else if (message.type === "stop") {
        onStop().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      }
    } catch (error) {
      send({ type: "failed", message: error instanceof Error ? error.message : String(error) });
    }
  });
  // The harness going away must not leave a server behind.
  process.on("disconnect", () => {
    onStop().finally(() => process.exit(0));
  });
}
