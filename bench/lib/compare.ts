/**
 * Interleaved A/B(/C) comparison: every arm is verified, warmed up, then measured in rounds
 * whose order rotates (AB, BA, AB, ...), so drift in the machine or the database hits every
 * arm alike. Ratios are taken per round (each arm against the baseline measured next to it),
 * then the median of those per-round ratios is reported with its range.
 */
import os from "node:os";
import { cpuMs } from "./cpu.js";
import { type HttpRequestSpec, type LoadResult, runLoad } from "./load.js";
import { max, median, min, percentile } from "./stats.js";

export interface Arm {
  name: string;
  spec: HttpRequestSpec;
  /** Throws unless one request gets the expected answer. Runs before warm-up and after. */
  verify?: () => Promise<void>;
  /** The server process answering this arm, for CPU time per request. */
  serverPid?: number;
  /** The arm this one's ratios are taken against. Default: the first arm. */
  baseline?: string;
  /**
   * Every arm this one's ratios are taken against, the main one first (overrides `baseline`).
   * The first arm has none unless given here.
   */
  baselines?: string[];
}

export interface RunSettings {
  connections: number;
  /**
   * About how long each arm runs in each round, seconds. Rounds are sized in requests (the
   * arm's warm-up rate times this), so that every request sent in a round completes in it and
   * the CPU measured over the round belongs to exactly those requests.
   */
  seconds: number;
  rounds: number;
  /** How long each arm runs before measuring, seconds. */
  warmupSeconds: number;
  /** The database process, for its CPU time per request. */
  dbPid?: number;
}

interface RoundResult extends LoadResult {
  /** Server and database CPU ms per completed request during the round. */
  serverCpu: number;
  dbCpu: number;
}

interface ArmSummary {
  name: string;
  /** Over all rounds' latencies pooled. */
  p50: number;
  p95: number;
  /** Median of the rounds' throughputs, req/s. */
  throughput: number;
  /** Medians of the rounds: CPU ms per request in the server process and in the database. */
  serverCpu: number;
  dbCpu: number;
  rounds: Array<{ p50: number; p95: number; throughput: number; serverCpu: number }>;
  requests: number;
  failures: number;
}

export interface RatioStat {
  median: number;
  min: number;
  max: number;
}

export interface RatioSummary {
  arm: string;
  baseline: string;
  /** arm ÷ baseline: above 1 means the arm is slower. */
  p50: RatioStat;
  p95: RatioStat;
  /** arm ÷ baseline: below 1 means the arm serves fewer requests per second. */
  throughput: RatioStat;
  /** arm ÷ baseline: server CPU per request. */
  serverCpu: RatioStat;
}

export interface Comparison {
  id: string;
  title: string;
  /** The 1-minute load average when the comparison started (before its own load). */
  loadAtStart: number;
  settings: RunSettings;
  arms: ArmSummary[];
  ratios: RatioSummary[];
}

function failures(result: LoadResult): number {
  return result.non2xx + result.errors + result.timeouts;
}

function ratioStat(values: number[]): RatioStat {
  const finite = values.filter(Number.isFinite);
  return { median: median(finite), min: min(finite), max: max(finite) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function measuredRound(
  arm: Arm,
  settings: RunSettings,
  amount: number,
): Promise<RoundResult> {
  const server0 = cpuMs(arm.serverPid);
  const db0 = cpuMs(settings.dbPid);
  const result = await runLoad(arm.spec, settings.connections, { amount });
  const done = Math.max(1, result.latencies.length);
  return {
    ...result,
    serverCpu: (cpuMs(arm.serverPid) - server0) / done,
    dbCpu: (cpuMs(settings.dbPid) - db0) / done,
  };
}

export async function compare(
  id: string,
  title: string,
  arms: Arm[],
  settings: RunSettings,
  log: (line: string) => void,
): Promise<Comparison> {
  const loadAtStart = os.loadavg()[0];
  const raw = new Map<string, RoundResult[]>(arms.map((arm) => [arm.name, []]));
  const amounts = new Map<string, number>();
  for (const arm of arms) {
    await arm.verify?.();
    const warm = await runLoad(arm.spec, settings.connections, {
      seconds: settings.warmupSeconds,
    });
    if (failures(warm) > 0) {
      throw new Error(`${id}/${arm.name}: ${failures(warm)} failed requests during warm-up`);
    }
    amounts.set(
      arm.name,
      Math.max(settings.connections * 4, Math.round(warm.throughput * settings.seconds)),
    );
  }
  // A timed warm-up abandons the requests in flight at its end; let the servers finish them.
  await sleep(1500);
  for (let round = 0; round < settings.rounds; round += 1) {
    const order = arms.map((_, i) => arms[(i + round) % arms.length]);
    if (round % 2 === 1) order.reverse();
    for (const arm of order) {
      raw.get(arm.name)?.push(await measuredRound(arm, settings, amounts.get(arm.name) ?? 100));
    }
  }
  for (const arm of arms) await arm.verify?.();

  const summaries = arms.map((arm): ArmSummary => {
    const results = raw.get(arm.name) ?? [];
    const pooled = results.flatMap((r) => r.latencies);
    const rounds = results.map((r) => ({
      p50: percentile(r.latencies, 50),
      p95: percentile(r.latencies, 95),
      throughput: r.throughput,
      serverCpu: r.serverCpu,
    }));
    return {
      name: arm.name,
      p50: percentile(pooled, 50),
      p95: percentile(pooled, 95),
      throughput: median(rounds.map((r) => r.throughput)),
      serverCpu: median(results.map((r) => r.serverCpu)),
      dbCpu: median(results.map((r) => r.dbCpu)),
      rounds,
      requests: pooled.length,
      failures: results.reduce((sum, r) => sum + failures(r), 0),
    };
  });
  const byName = new Map(summaries.map((summary) => [summary.name, summary]));
  const ratios = arms.flatMap((arm, index) =>
    (arm.baselines ?? (index === 0 ? [] : [arm.baseline ?? arms[0].name])).map(
      (baseline): RatioSummary => {
        const self = byName.get(arm.name) as ArmSummary;
        const base = byName.get(baseline);
        if (!base || base === self) throw new Error(`${id}/${arm.name}: no baseline arm`);
        const per = (value: (round: ArmSummary["rounds"][number]) => number) =>
          ratioStat(self.rounds.map((r, i) => value(r) / value(base.rounds[i])));
        return {
          arm: self.name,
          baseline: base.name,
          p50: per((r) => r.p50),
          p95: per((r) => r.p95),
          throughput: per((r) => r.throughput),
          serverCpu: per((r) => r.serverCpu),
        };
      },
    ),
  );
  const comparison = { id, title, loadAtStart, settings, arms: summaries, ratios };
  for (const arm of summaries) {
    log(
      `  ${arm.name.padEnd(42)} p50 ${arm.p50.toFixed(2)} ms  p95 ${arm.p95.toFixed(2)} ms  ${arm.throughput.toFixed(0)} req/s  CPU/req server ${arm.serverCpu.toFixed(2)} ms, db ${arm.dbCpu.toFixed(2)} ms  (${arm.failures} failed)`,
    );
  }
  for (const r of ratios) {
    log(
      `  ${r.arm} vs ${r.baseline}: p50 ${r.p50.median.toFixed(2)}x  p95 ${r.p95.median.toFixed(2)}x  throughput ${r.throughput.median.toFixed(2)}x  server CPU ${r.serverCpu.median.toFixed(2)}x [${r.serverCpu.min.toFixed(2)}–${r.serverCpu.max.toFixed(2)}]`,
    );
  }
  return comparison;
}
