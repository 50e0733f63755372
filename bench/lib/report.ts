/** Markdown for RESULTS.md (and the same tables on stdout). */
import type { Comparison, RatioStat } from "./compare.js";
import type { ProfileSummary } from "./profile.js";
import { ms, rate, ratio } from "./stats.js";

export function range(stat: RatioStat): string {
  return `${ratio(stat.median)} [${ratio(stat.min)}–${ratio(stat.max)}]`;
}

export function comparisonTable(comparison: Comparison): string {
  const { settings } = comparison;
  const lines = [
    `**${comparison.title}** — concurrency ${settings.connections}; ${settings.rounds} interleaved rounds of about ${settings.seconds} s per arm (sized in requests from the arm's warm-up rate), after ${settings.warmupSeconds} s of warm-up per arm; 1-minute load average at its start ${comparison.loadAtStart.toFixed(2)} (this includes the load the benchmark itself left from the comparison before)`,
    "",
    "| arm | p50 ms | p95 ms | req/s (median of rounds) | server CPU ms/req | database CPU ms/req | requests | failed |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...comparison.arms.map(
      (arm) =>
        `| ${arm.name} | ${ms(arm.p50)} | ${ms(arm.p95)} | ${rate(arm.throughput)} | ${ms(arm.serverCpu)} | ${ms(arm.dbCpu)} | ${arm.requests} | ${arm.failures} |`,
    ),
  ];
  if (comparison.ratios.length > 0) {
    lines.push(
      "",
      "| ratio (per-round median [min–max]) | p50 | p95 | throughput | server CPU/req |",
      "| --- | ---: | ---: | ---: | ---: |",
      ...comparison.ratios.map(
        (r) =>
          `| ${r.arm} ÷ ${r.baseline} | ${range(r.p50)} | ${range(r.p95)} | ${range(r.throughput)} | ${range(r.serverCpu)} |`,
      ),
    );
  }
  return lines.join("\n");
}

/**
 * `cpuPerCallMs` is the server CPU per call measured from /proc in an unprofiled run; each row's
 * "per call" is its share of the profile's busy time times that, so the sampler's own overhead
 * and time lost to preemption do not inflate it.
 */
export function profileTables(summary: ProfileSummary, cpuPerCallMs: number): string {
  const perCall = (share: number) => `${(share * cpuPerCallMs * 1000).toFixed(0)} µs`;
  const row = (r: { name: string; selfMs: number; share: number }) =>
    `| ${r.name.replace(/\|/g, "\\|")} | ${(r.share * 100).toFixed(1)}% | ${perCall(r.share)} |`;
  return [
    `Server CPU per call (unprofiled, from /proc): ${(cpuPerCallMs * 1000).toFixed(0)} µs. Profile: ${summary.busyMs.toFixed(0)} ms busy of ${summary.wallMs.toFixed(0)} ms.`,
    "",
    "| self time by package / file | share of busy | per call |",
    "| --- | ---: | ---: |",
    ...summary.byGroup.map(row),
    "",
    "| phase (inclusive: everything on the stack under it; phases overlap) | share of busy | per call |",
    "| --- | ---: | ---: |",
    ...summary.phases.map(row),
    "",
    "| hottest functions (self time) | share of busy | per call |",
    "| --- | ---: | ---: |",
    ...summary.byFunction.map(row),
  ].join("\n");
}
