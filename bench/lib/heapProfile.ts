/**
 * Reads a V8 sampling heap profile (bench/lib/ipc.ts `heap-start`, which keeps objects the GC
 * already collected) and attributes the bytes allocated to functions and to packages or files.
 */
import { readFileSync } from "node:fs";
import { frameName, groupOf } from "./profile.js";

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children?: HeapNode[];
}

interface AllocationRow {
  name: string;
  bytes: number;
  share: number;
}

export interface HeapSummary {
  totalBytes: number;
  byFunction: AllocationRow[];
  byGroup: AllocationRow[];
}

function rows(map: Map<string, number>, total: number, top: number): AllocationRow[] {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, bytes]) => ({ name, bytes, share: bytes / total }));
}

export function summarizeHeapProfile(file: string, top = 15): HeapSummary {
  const profile = JSON.parse(readFileSync(file, "utf8")) as { head: HeapNode };
  const functions = new Map<string, number>();
  const groups = new Map<string, number>();
  let totalBytes = 0;
  const stack: HeapNode[] = [profile.head];
  for (let node = stack.pop(); node; node = stack.pop()) {
    stack.push(...(node.children ?? []));
    if (node.selfSize === 0) continue;
    totalBytes += node.selfSize;
    const name = frameName(node.callFrame);
    functions.set(name, (functions.get(name) ?? 0) + node.selfSize);
    const group = groupOf(node.callFrame);
    groups.set(group, (groups.get(group) ?? 0) + node.selfSize);
  }
  return {
    totalBytes,
    byFunction: rows(functions, totalBytes, top),
    byGroup: rows(groups, totalBytes, top),
  };
}
