/** Placeholder: filled below. */
import type { Child } from "./lib/processes.js";
import type { Caller } from "./lib/setup.js";

export interface KeptOptions {
  uri: string;
  dbPid?: number;
  prod: Child;
  reader: Caller;
  start: (name: string, script: string, uri: string, env?: NodeJS.ProcessEnv) => Promise<Child>;
  log: (line: string) => void;
}

export async function keptChecks(_options: KeptOptions): Promise<{ section: string }> {
  return { section: "" };
}
