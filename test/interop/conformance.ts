/**
 * Runs the official MCP conformance runner (`conformance server`) with the Node 22 binary and
 * judges each scenario against test/interop/conformance-expected-failures.json.
 */
import fs from "node:fs";
import path from "node:path";
import { INTEROP_DIR, type ProcessResult, type RunOptions, run } from "./tools.js";

export type ItemStatus = "pass" | "fail" | "xfail" | "xpass" | "skip";

export interface Item {
  group: string;
  name: string;
  status: ItemStatus;
  detail?: string;
}

export interface ConformanceRun {
  /** Key in the expected-failures file, e.g. "v0.2@2026-07-28". */
  id: string;
  /** The runner's `dist/index.js`. */
  runner: string;
  version: string;
  /** Extra CLI arguments, e.g. ["--requirements", "2026-07-28"]. */
  args: string[];
  /**
   * The runner's command. Default "server" (`server --url <mcpUrl>`); "authorization" tests the
   * OAuth authorization server and takes its `--url` (the issuer) and client in `args`.
   */
  command?: "server" | "authorization";
  /** Scenarios (or "scenario:check-id") that must run and pass in this run. */
  required: string[];
}

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
  details?: unknown;
}

export const EXPECTED_FAILURES_FILE = path.join(INTEROP_DIR, "conformance-expected-failures.json");

export function loadExpectedFailures(
  file = EXPECTED_FAILURES_FILE,
): Record<string, Record<string, string>> {
  const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as {
    runs?: Record<string, Record<string, string>>;
  };
  const runs = parsed.runs ?? {};
  for (const [runId, entries] of Object.entries(runs)) {
    for (const [key, reason] of Object.entries(entries)) {
      if (typeof reason !== "string" || reason.trim() === "") {
        throw new Error(`${path.basename(file)}: ${runId} / ${key} needs a reason.`);
      }
    }
  }
  return runs;
}

const failing = (check: Check) => check.status === "FAILURE" || check.status === "WARNING";

function describeCheck(check: Check): string {
  const message =
    check.errorMessage ??
    (check.details && typeof check.details === "object" && "message" in check.details
      ? String((check.details as { message: unknown }).message)
      : JSON.stringify(check.details ?? {}));
  return `${check.id} ${check.status}: ${message}`.slice(0, 400);
}

/**
 * Scenario → checks, from the runner's output directory: one `server-<name>-<time>/` (or
 * `authorization-server-<name>-<time>/`) each.
 */
function readResults(outputDir: string): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  if (!fs.existsSync(outputDir)) return results;
  for (const entry of fs.readdirSync(outputDir)) {
    const file = path.join(outputDir, entry, "checks.json");
    if (!fs.existsSync(file)) continue;
    const scenario = entry
      .replace(/^(?:authorization-)?server-/, "")
      .replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "");
    results.set(scenario, JSON.parse(fs.readFileSync(file, "utf8")) as Check[]);
  }
  return results;
}

export interface ConformanceOutcome {
  items: Item[];
  process: ProcessResult;
  logFile: string;
}

/** Judges one run's results; exported for tests of the judging rules. */
export function judge(
  conf: Pick<ConformanceRun, "id" | "version" | "required">,
  results: Map<string, Check[]>,
  expected: Record<string, string>,
): Item[] {
  const group = `conformance ${conf.version} (${conf.id})`;
  const items: Item[] = [];
  const wholeScenario = new Map<string, string>();
  const perCheck = new Map<string, Map<string, string>>();
  for (const [key, reason] of Object.entries(expected)) {
    const colon = key.indexOf(":");
    if (colon === -1) {
      wholeScenario.set(key, reason);
    } else {
      const scenario = key.slice(0, colon);
      const checks = perCheck.get(scenario) ?? new Map<string, string>();
      checks.set(key.slice(colon + 1), reason);
      perCheck.set(scenario, checks);
    }
  }

  for (const required of conf.required) {
    const [scenario, checkId] = required.split(":");
    if (wholeScenario.has(scenario) || perCheck.get(scenario)?.has(checkId ?? "")) {
      items.push({
        group,
        name: required,
        status: "fail",
        detail: "a required scenario must not be listed in the expected-failures file",
      });
    }
    const checks = results.get(scenario);
    const relevant = checkId ? checks?.filter((check) => check.id === checkId) : checks;
    if (!relevant?.some((check) => check.status === "SUCCESS")) {
      items.push({
        group,
        name: required,
        status: "fail",
        detail: checks ? "required, but no check of it succeeded" : "required, but it did not run",
      });
    }
  }

  for (const [scenario, checks] of [...results].sort(([a], [b]) => a.localeCompare(b))) {
    const failures = checks.filter(failing);
    const scenarioReason = wholeScenario.get(scenario);
    if (scenarioReason !== undefined) {
      items.push(
        failures.length > 0
          ? { group, name: scenario, status: "xfail", detail: scenarioReason }
          : {
              group,
              name: scenario,
              status: "xpass",
              detail: "listed as an expected failure but passed: remove it from the file",
            },
      );
      continue;
    }
    const checkReasons = perCheck.get(scenario) ?? new Map<string, string>();
    const unexpected = failures.filter((check) => !checkReasons.has(check.id));
    const xpassed = [...checkReasons.keys()].filter((id) =>
      checks.some((check) => check.id === id && check.status === "SUCCESS"),
    );
    const expectedCount = failures.length - unexpected.length;
    if (unexpected.length > 0) {
      items.push({
        group,
        name: scenario,
        status: "fail",
        detail: unexpected.map(describeCheck).join("\n"),
      });
    } else if (!checks.some((check) => check.status === "SUCCESS") && failures.length === 0) {
      items.push({ group, name: scenario, status: "skip", detail: "no applicable checks" });
    } else {
      const notes = [
        expectedCount > 0 ? `${expectedCount} check(s) expected to fail` : "",
        xpassed.length > 0 ? `expected to fail but passed: ${xpassed.join(", ")}` : "",
      ].filter(Boolean);
      items.push({
        group,
        name: scenario,
        status: xpassed.length > 0 ? "xpass" : "pass",
        detail: notes.join("; ") || undefined,
      });
    }
  }

  for (const key of Object.keys(expected)) {
    const scenario = key.split(":")[0];
    if (!results.has(scenario)) {
      items.push({
        group,
        name: key,
        status: "xpass",
        detail: "listed as an expected failure, but the scenario did not run: remove it",
      });
    }
  }
  return items;
}

/** Runs one conformance invocation against `mcpUrl` and judges the results. */
export async function runConformance(
  conf: ConformanceRun,
  node22: string,
  mcpUrl: string,
  outputDir: string,
  expected: Record<string, string>,
  runOptions: Pick<RunOptions, "onStdout" | "signal" | "timeoutMs"> = {},
): Promise<ConformanceOutcome> {
  fs.rmSync(outputDir, { recursive: true, force: true });
  fs.mkdirSync(outputDir, { recursive: true });
  const target = conf.command === "authorization" ? ["authorization"] : ["server", "--url", mcpUrl];
  const args = [conf.runner, ...target, ...conf.args, "-o", outputDir];
  const result = await run(node22, args, { timeoutMs: 5 * 60_000, ...runOptions });
  const logFile = `${outputDir}.log`;
  fs.writeFileSync(
    logFile,
    `$ ${[node22, ...args].join(" ")}\n(exit ${result.code})\n${result.stdout}\n${result.stderr}`,
  );
  const results = readResults(outputDir);
  const items = judge(conf, results, expected);
  // The runner exits 1 when any check fails (expected ones included); anything else, or no
  // results at all, means the runner itself broke.
  if ((result.code !== 0 && result.code !== 1) || results.size === 0) {
    items.push({
      group: `conformance ${conf.version} (${conf.id})`,
      name: "runner",
      status: "fail",
      detail: `the runner exited with ${result.code ?? result.signal} and wrote ${results.size} result(s); see ${logFile}\n${result.stderr.slice(-2000)}`,
    });
  }
  return { items, process: result, logFile };
}
