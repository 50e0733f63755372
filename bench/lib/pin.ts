/**
 * CPU pinning with taskset (issue #38): the database on one core, the measured servers on the
 * others, so FerretDB's CPU (10–20× a server's per request) does not preempt the server being
 * measured. `-a` pins every thread the process has now; threads started later inherit it.
 */
import { execFileSync } from "node:child_process";
import os from "node:os";

export interface Pinning {
  /** The cores for the database (and the load generator), as taskset's list. */
  database: string;
  /** The cores for the server children. */
  servers: string;
  /** Every core: the database's again once the ratio sections are done. */
  all: string;
}

/**
 * The plan, or why there is none: PROD_PIN=0, fewer than 2 cores, or no taskset. The database
 * gets core 0; the servers get the rest.
 */
export function planPinning(): Pinning | string {
  if (process.env.PROD_PIN === "0") return "off (PROD_PIN=0)";
  const cores = os.availableParallelism();
  if (cores < 2) return `off (${cores} core)`;
  try {
    execFileSync("taskset", ["-V"], { stdio: "ignore" });
  } catch {
    return "off (no taskset)";
  }
  return {
    database: "0",
    servers: cores === 2 ? "1" : `1-${cores - 1}`,
    all: `0-${cores - 1}`,
  };
}

/** Pins every thread of `pid` to `cpus`; throws with taskset's message if it cannot. */
export function pin(pid: number | undefined, cpus: string): void {
  if (pid === undefined) throw new Error(`taskset ${cpus}: no pid`);
  execFileSync("taskset", ["-a", "-p", "-c", cpus, String(pid)], { stdio: "ignore" });
}
