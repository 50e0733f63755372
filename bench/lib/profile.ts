/**
 * Reads a V8 .cpuprofile (from `node --cpu-prof`) and attributes self time to functions and to
 * the package or source file they live in, so per-request costs can be named: "the MCP SDK",
 * "mongoose", "the mongodb driver", "src/core/serialize.ts", "GC", ...
 */
import { readFileSync } from "node:fs";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

interface CostRow {
  name: string;
  /** Self time in ms over the profile. */
  selfMs: number;
  /** Share of the busy (non-idle) time. */
  share: number;
}

export interface ProfileSummary {
  /** Wall time covered by the profile, ms. */
  wallMs: number;
  /** Non-idle time, ms. */
  busyMs: number;
  byGroup: CostRow[];
  byFunction: CostRow[];
  /** Inclusive shares of named phases (a sample counts for every phase on its stack). */
  phases: CostRow[];
}

/**
 * Phases of a request, by what is on the stack. Work that continues after an `await` runs from
 * the microtask queue without its caller on the stack, so these capture synchronous work only.
 */
const PHASES: Array<{ name: string; test: (frame: CallFrame) => boolean }> = [
  {
    name: "MCP SDK and its web-standard adapter (incl. zod message checks, Request/Response)",
    test: (f) => f.url.includes("/@modelcontextprotocol/"),
  },
  {
    name: "JWT verification (jsonwebtoken)",
    test: (f) => f.url.includes("/node_modules/jsonwebtoken/"),
  },
  {
    name: "serializeDocument (toObject + JSON round trip + id renaming)",
    test: (f) => f.functionName === "serializeDocument",
  },
  {
    name: "Express routing and body parsing (incl. what runs synchronously inside it)",
    test: (f) => /\/node_modules\/(express|router|body-parser|raw-body)\//.test(f.url),
  },
];

/** Native functions (no JS source) that move bytes through sockets. */
const SOCKET_IO = new Set([
  "writeBuffer",
  "writev",
  "writeUtf8String",
  "writeLatin1String",
  "writeAsciiString",
  "onStreamRead",
  "readStart",
  "readStop",
  "shutdown",
  "close",
]);

/** Which package or project file a frame belongs to. */
export function groupOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) {
    if (functionName === "(garbage collector)") return "GC";
    if (functionName === "(program)") return "V8/native (program)";
    if (functionName === "(idle)") return "(idle)";
    if (SOCKET_IO.has(functionName)) return "native socket I/O (write/read syscalls)";
    if (functionName === "runMicrotasks") return "native microtask queue";
    return "native code and V8 builtins (JSON, RegExp, crypto, ...)";
  }
  const modules = url.lastIndexOf("/node_modules/");
  if (modules >= 0) {
    const rest = url.slice(modules + "/node_modules/".length).split("/");
    const name = rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
    if (name === "bson") return "bson (BSON encode/decode)";
    if (name === "mongodb") return "mongodb (driver)";
    if (name.startsWith("@modelcontextprotocol/")) return "@modelcontextprotocol/* (MCP SDK)";
    return name;
  }
  if (url.startsWith("node:")) {
    const internal = url.replace(/^node:(internal\/)?/, "");
    const area = internal.split("/")[0];
    return `node:${area}`;
  }
  const src = url.indexOf("/src/");
  if (src >= 0) return `terreno-mcp ${url.slice(src + 1)}`;
  const bench = url.indexOf("/bench/");
  if (bench >= 0) return `bench ${url.slice(bench + 1)}`;
  return url;
}

export function frameName(frame: CallFrame): string {
  const where = frame.url ? `${groupOf(frame)}:${frame.lineNumber + 1}` : groupOf(frame);
  return `${frame.functionName || "(anonymous)"} (${where})`;
}

function table(map: Map<string, number>, busyMs: number, top: number): CostRow[] {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, selfMs]) => ({ name, selfMs, share: selfMs / busyMs }));
}

export function summarizeProfile(file: string, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parentOf.set(child, node.id);
  }
  // The profiler's own work (Profiler.stop serializing the profile) is not the server's.
  const isProfilerWork = (id: number): boolean => {
    for (let cur: number | undefined = id; cur !== undefined; cur = parentOf.get(cur)) {
      if (byId.get(cur)?.callFrame.url === "node:inspector") return true;
    }
    return false;
  };
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i += 1) {
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const phaseMs = new Map<string, number>(PHASES.map((phase) => [phase.name, 0]));
  const groups = new Map<string, number>();
  const functions = new Map<string, number>();
  let idleMs = 0;
  let totalMs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node || isProfilerWork(id)) continue;
    const msValue = us / 1000;
    totalMs += msValue;
    const group = groupOf(node.callFrame);
    if (group === "(idle)") {
      idleMs += msValue;
      continue;
    }
    groups.set(group, (groups.get(group) ?? 0) + msValue);
    const onStack = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parentOf.get(cur)) {
      const frame = byId.get(cur)?.callFrame;
      if (!frame) break;
      for (const phase of PHASES) if (phase.test(frame)) onStack.add(phase.name);
    }
    for (const name of onStack) phaseMs.set(name, (phaseMs.get(name) ?? 0) + msValue);
    const name = frameName(node.callFrame);
    functions.set(name, (functions.get(name) ?? 0) + msValue);
  }
  const busyMs = totalMs - idleMs;
  return {
    wallMs: (profile.endTime - profile.startTime) / 1000,
    busyMs,
    byGroup: table(groups, busyMs, top),
    byFunction: table(functions, busyMs, top),
    phases: PHASES.map((phase) => {
      const selfMs = phaseMs.get(phase.name) ?? 0;
      return { name: phase.name, selfMs, share: selfMs / busyMs };
    }),
  };
}
