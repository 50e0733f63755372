/**
 * bench/prod.ts's "keep what was won" checks (issue #26 item 3): tools/list at 200 models p50,
 * RSS after many MCP calls against warm-up, getMCPTools() execute ÷ the direct core call (the
 * existing servers/inproc.ts), and the chat plugin ÷ a bare streamText route doing the same tool
 * call (servers/prod.ts's `auxChat` app), each as a table row with its target.
 */
import { type Arm, compare } from "./lib/compare.js";
import { runLoad } from "./lib/load.js";
import { mcpRequest, send, toolCall } from "./lib/mcp.js";
import type { Child } from "./lib/processes.js";
import { range } from "./lib/report.js";
import type { Caller } from "./lib/setup.js";
import { median, mib, ms, percentile, ratio } from "./lib/stats.js";
import type { InprocResult } from "./servers/inproc.js";

interface KeptOptions {
  uri: string;
  dbPid?: number;
  prod: Child;
  reader: Caller;
  start: (name: string, script: string, uri: string, env?: NodeJS.ProcessEnv) => Promise<Child>;
  log: (line: string) => void;
  /** bench/prod.ts's run sizes (its default run must finish in under 10 minutes). */
  sizes: { rounds: number; seconds: number; warmupSeconds: number; memoryCalls: number };
}

const verdict = (value: number, target: number) => (value <= target ? "pass" : "FAIL");

export async function keptChecks(options: KeptOptions): Promise<{ section: string }> {
  const { prod, reader, log, sizes } = options;
  const rows: string[] = [];
  const base = (port: string) => `http://127.0.0.1:${prod.ports[port]}`;

  // tools/list with 200 generated models (servers/ours.ts), concurrency 1.
  log("\n[kept] tools/list at 200 models");
  const ours = await options.start("ours200", "ours.ts", options.uri, {
    BENCH_MODEL_COUNTS: "200",
  });
  try {
    const spec = mcpRequest(
      `http://127.0.0.1:${ours.ports.models200}/mcp`,
      reader.token,
      "modern",
      "tools/list",
    );
    const first = await send(spec);
    const listed = (first.json as { result?: { tools?: unknown[] } }).result?.tools?.length;
    await runLoad(spec, 1, { seconds: sizes.warmupSeconds });
    const timed = await runLoad(spec, 1, { seconds: 2 * sizes.seconds });
    const p50 = percentile(timed.latencies, 50);
    rows.push(
      `| tools/list p50, 200 models (${listed} tools), concurrency 1 | ${ms(p50)} ms (p95 ${ms(percentile(timed.latencies, 95))}) | ≤ 5 ms | ${verdict(p50, 5)} |`,
    );
  } finally {
    await ours.stop();
  }

  // getMCPTools() execute ÷ the direct core list(), in process (servers/inproc.ts).
  log("[kept] getMCPTools() execute vs core list(), in process");
  const inproc = await options.start("inproc", "inproc.ts", options.uri, {
    BENCH_USER_ID: reader.userId,
    BENCH_SECONDS: String(sizes.seconds),
    BENCH_ROUNDS: String(sizes.rounds),
  });
  const result = (await inproc.result().catch((error: unknown) => {
    rows.push(
      `| getMCPTools() execute ÷ core list() | not measured: ${String(error)} | ≤ 1.10× | — |`,
    );
    return undefined;
  })) as InprocResult | undefined;
  await inproc.stop();
  if (result) pushExecRow(rows, result);

  // The chat plugin ÷ a bare streamText route, both one todos_list call and two model steps.
  log("[kept] chat plugin vs a bare streamText route");
  const chatBody = JSON.stringify({
    messages: [
      { id: "m1", role: "user", parts: [{ type: "text", text: "How many todos do I have?" }] },
    ],
  });
  const chatSpec = (url: string) => ({
    url,
    method: "POST" as const,
    headers: { authorization: `Bearer ${reader.token}`, "content-type": "application/json" },
    body: chatBody,
  });
  const chatArm = (name: string, url: string): Arm => ({
    name,
    spec: chatSpec(url),
    serverPid: prod.process.pid,
    baseline: "bare streamText + getMCPTools()",
    verify: async () => {
      const response = await fetch(url, chatSpec(url));
      const text = await response.text();
      if (response.status !== 200 || !text.includes("You have 20 todos")) {
        throw new Error(`${name}: ${response.status} ${text.slice(0, 300)}`);
      }
      if (!text.includes('"tool-output-available"')) throw new Error(`${name}: no tool call`);
    },
  });
  const chat = await compare(
    "kept-chat",
    "Chat: the plugin ÷ a bare streamText route doing the same tool call",
    [
      { ...chatArm("bare streamText + getMCPTools()", `${base("auxChat")}/bare-chat`) },
      chatArm("chatPlugin, persist: false", `${base("auxChat")}/chat`),
      chatArm("chatPlugin, defaults (conversation stored)", `${base("prod")}/chat`),
    ],
    {
      connections: 4,
      seconds: sizes.seconds,
      rounds: sizes.rounds,
      warmupSeconds: sizes.warmupSeconds,
      dbPid: options.dbPid,
    },
    log,
  );
  for (const r of chat.ratios) {
    const self = chat.arms.find((a) => a.name === r.arm);
    const bare = chat.arms.find((a) => a.name === r.baseline);
    rows.push(
      `| ${r.arm} ÷ bare streamText, server CPU/request, concurrency 4 | ${range(r.serverCpu)} (${ms(self?.serverCpu ?? Number.NaN)} vs ${ms(bare?.serverCpu ?? Number.NaN)} ms) | ≤ 1.10× | ${verdict(r.serverCpu.median, 1.1)} |`,
    );
  }

  // RSS after many MCP calls against RSS after warm-up, on the production app.
  log(`[kept] memory: ${sizes.memoryCalls} MCP calls`);
  const listed = (
    await send(toolCall(`${base("prod")}/mcp`, reader.token, "modern", "todos_list", { limit: 1 }))
  ).json as { result?: { structuredContent?: { data?: Array<{ id: string }> } } };
  const todoId = listed.result?.structuredContent?.data?.[0]?.id ?? "";
  const mcpUrl = `${base("prod")}/mcp`;
  const mix = [
    toolCall(mcpUrl, reader.token, "modern", "todos_list", { limit: 5 }),
    ...Array.from({ length: 4 }, () =>
      toolCall(mcpUrl, reader.token, "modern", "todos_read", { id: todoId }),
    ),
    ...Array.from({ length: 3 }, () => mcpRequest(mcpUrl, reader.token, "modern", "tools/list")),
  ];
  await runLoad(mix, 16, { amount: Math.max(800, Math.round(sizes.memoryCalls / 10)) });
  const warm = prod.rss();
  const load = await runLoad(mix, 16, { amount: sizes.memoryCalls });
  const after = prod.rss();
  const failed = load.non2xx + load.errors + load.timeouts;
  rows.push(
    `| RSS after ${load.latencies.length} MCP calls ÷ after warm-up (production app; ${failed} failed${sizes.memoryCalls < 50_000 ? "; the issue's 50,000 with PROD_LONG=1" : ""}) | ${ratio(after / warm)} (${mib(warm)} → ${mib(after)}) | ≤ 1.10× | ${verdict(after / warm, 1.1)} |`,
  );

  return {
    section: [
      "**Kept from earlier issues** (same run):",
      "",
      "| measure | this run | target | result |",
      "| --- | ---: | ---: | --- |",
      ...rows,
    ].join("\n"),
  };
}

function pushExecRow(rows: string[], result: InprocResult): void {
  const perRound = result.execute.c16.map((r, i) => r.cpuPerCall / result.direct.c16[i].cpuPerCall);
  const execRatio = median(perRound);
  rows.push(
    `| getMCPTools() execute ÷ core list(), Node CPU per call, 16 in flight | ${ratio(execRatio)} [${ratio(Math.min(...perRound))}–${ratio(Math.max(...perRound))}] (${ms(median(result.execute.c16.map((r) => r.cpuPerCall)))} vs ${ms(median(result.direct.c16.map((r) => r.cpuPerCall)))} ms) | ≤ 1.10× | ${verdict(execRatio, 1.1)} |`,
  );
}
