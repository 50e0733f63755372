/**
 * The o200k token cost of a tool catalog. A tool costs what a model reads of it before its first
 * call: `JSON.stringify({name, description, inputSchema})` encoded with gpt-tokenizer's
 * o200k_base (the GPT-4o / GPT-5 encoding). This is how the baseline figures were
 * counted (the example's 7 tools 2,567, todos_list 988). Titles, output schemas and annotations
 * are left out: clients differ in whether they show those to the model. The description and the
 * schema are also counted alone, to show where a tool's tokens are.
 */
import { encode } from "gpt-tokenizer/encoding/o200k_base";

export interface ToolLike {
  name: string;
  description?: string;
  inputSchema?: unknown;
}

interface ToolTokens {
  name: string;
  /** `JSON.stringify({name, description, inputSchema})`. */
  total: number;
  /** The description alone, and `JSON.stringify(inputSchema)` alone. */
  description: number;
  schema: number;
}

export interface CatalogTokens {
  tools: ToolTokens[];
  total: number;
}

const countTokens = (text: string): number => encode(text).length;

function toolTokens(tool: ToolLike): ToolTokens {
  return {
    name: tool.name,
    total: countTokens(
      JSON.stringify({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
      }),
    ),
    description: countTokens(tool.description ?? ""),
    schema: countTokens(JSON.stringify(tool.inputSchema ?? {})),
  };
}

export function countCatalog(tools: readonly ToolLike[]): CatalogTokens {
  const counted = tools.map(toolTokens);
  return { tools: counted, total: counted.reduce((sum, t) => sum + t.total, 0) };
}

/** A catalog's token counts before a change: measured live (BENCH_BASELINE) or recorded. */
export interface TokenBaseline {
  /** Where the numbers come from, for the report. */
  source: string;
  catalogs: Record<string, CatalogTokens | undefined>;
}

const pct = (value: number, base: number | undefined) =>
  base ? `${((100 * value) / base).toFixed(0)}%` : "—";

/** Per-tool rows with the baseline's figure and the % of it; tools gone since are listed too. */
export function catalogTable(current: CatalogTokens, baseline?: CatalogTokens): string[] {
  const before = new Map(baseline?.tools.map((t) => [t.name, t.total]) ?? []);
  const rows = current.tools.map(
    (t) =>
      `| ${t.name} | ${t.total} | ${t.description} | ${t.schema} | ${before.get(t.name) ?? "—"} | ${pct(t.total, before.get(t.name))} |`,
  );
  const names = new Set(current.tools.map((t) => t.name));
  for (const t of baseline?.tools ?? []) {
    if (!names.has(t.name)) rows.push(`| ${t.name} (gone) | — | — | — | ${t.total} | — |`);
  }
  const common = commonTools(current, baseline);
  return [
    "| tool | tokens | of which description | of which inputSchema | baseline | % of baseline |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    ...rows,
    `| **catalog (${current.tools.length} tools)** | **${current.total}** | | | ${baseline?.total ?? "—"} | ${pct(current.total, baseline?.total)} |`,
    ...(common
      ? [
          `| **the ${common.count} tools in both** | **${common.current}** | | | ${common.baseline} | ${pct(common.current, common.baseline)} |`,
        ]
      : []),
  ];
}

/** When the tool sets differ: the totals over the tools present in both. */
function commonTools(
  current: CatalogTokens,
  baseline: CatalogTokens | undefined,
): { count: number; current: number; baseline: number } | undefined {
  if (!baseline) return undefined;
  const before = new Map(baseline.tools.map((t) => [t.name, t.total]));
  const both = current.tools.filter((t) => before.has(t.name));
  if (both.length === current.tools.length && both.length === baseline.tools.length) {
    return undefined;
  }
  return {
    count: both.length,
    current: both.reduce((sum, t) => sum + t.total, 0),
    baseline: both.reduce((sum, t) => sum + (before.get(t.name) ?? 0), 0),
  };
}

/** One line: the catalog total and the list tool against the baseline. */
export function catalogSummary(
  title: string,
  current: CatalogTokens,
  baseline: CatalogTokens | undefined,
  listTool: string,
): string {
  const list = current.tools.find((t) => t.name === listTool);
  const listBefore = baseline?.tools.find((t) => t.name === listTool);
  const common = commonTools(current, baseline);
  const parts = [
    `${title}: ${current.tools.length} tools, ${current.total} tokens (baseline ${baseline?.tools.length ?? "n/a"} tools, ${baseline?.total ?? "n/a"}; ${pct(current.total, baseline?.total)} of it)`,
    ...(common
      ? [
          `the ${common.count} tools in both ${common.current} (baseline ${common.baseline}, ${pct(common.current, common.baseline)})`,
        ]
      : []),
  ];
  if (list) {
    parts.push(
      `${listTool} ${list.total} (baseline ${listBefore?.total ?? "n/a"}, ${pct(list.total, listBefore?.total)})`,
    );
  }
  return parts.join("; ");
}

/** The tools of a tools/list answer, as sent on the wire. */
export function toolsOf(json: unknown): ToolLike[] {
  const tools = (json as { result?: { tools?: ToolLike[] } })?.result?.tools;
  if (!Array.isArray(tools)) throw new Error(`not a tools/list result: ${JSON.stringify(json)}`);
  return tools;
}
