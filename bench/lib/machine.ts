/** What the numbers were measured on: CPU, cores, memory, Node, load, date. */
import { readFileSync } from "node:fs";
import os from "node:os";

export interface Machine {
  cpuModel: string;
  nproc: number;
  memory: string;
  node: string;
  platform: string;
  date: string;
}

export function describeMachine(): Machine {
  let cpuModel = os.cpus()[0]?.model ?? "unknown";
  try {
    const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? cpuModel;
  } catch {
    // Not Linux: keep os.cpus().
  }
  return {
    cpuModel,
    // The machine's cores, not this process's affinity (bench:prod pins itself to one core).
    nproc: os.cpus().length,
    memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    date: new Date().toISOString(),
  };
}

/** The 1, 5 and 15 minute load averages, formatted. */
export function loadAverage(): string {
  return os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(", ");
}
