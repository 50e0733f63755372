/**
 * createDemoModel(): an offline, rule-based AI SDK `LanguageModelV4` for demos and tests. It is
 * not an LLM: it understands a handful of phrasings and answers with real tool calls:
 *
 * - "add a todo to buy milk tomorrow" → `todos_create {title, dueDate}`;
 * - "list my todos" → `todos_list`; "list the projects" → `projects_list` (any list tool offered);
 * - "complete buy milk" → `todos_list {filter: {title}}`, then `todos_complete {id}` when the
 *   tool set has that action, else `todos_update {id, completed: true}`;
 * - "delete buy milk" → `todos_list {filter: {title}}`, then `todos_delete {id}`;
 * - "how do I connect Claude Code?" → `search_docs {query}` (when offered);
 *
 * after the tool results it writes a short summary; anything else gets a help text. The phrasings
 * are in demoIntent.ts, the reading of the prompt in demoPrompt.ts.
 */
import { randomUUID } from "node:crypto";
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import type { PlainObject } from "../core/types.js";
import { DEMO_MODEL_ID } from "./demoIdentity.js";
import { parseIntent } from "./demoIntent.js";
import { readPrompt } from "./demoPrompt.js";

export interface DemoModelOptions {
  /** The resource whose tools it calls (`<prefix>_list`, ...). Default `todos`, else the first `*_list`. */
  resource?: string;
  /** "Today" for due dates (tests). Default the current date. */
  now?: () => Date;
  /** A pause before each streamed word, in ms, to show a reply arriving (demos, tests). Default 0. */
  wordDelayMs?: number;
}

function dataOf(value: unknown): unknown {
  return typeof value === "object" && value !== null && "data" in value
    ? (value as { data: unknown }).data
    : value;
}

function quoted(title: unknown): string {
  return `“${String(title)}”`;
}

function helpText(prefix: string, hasDocs: boolean): string {
  const lines = [
    "I am an offline demo model (rule-based, not an LLM). I understand:",
    `- "add a todo to buy milk tomorrow"`,
    `- "list my todos"`,
    `- "complete buy milk"`,
    `- "delete buy milk"`,
  ];
  if (hasDocs) lines.push(`- "how do I connect Claude Code?" (searches the docs)`);
  if (prefix !== "todos") lines.push(`(I work on the ${prefix} tools.)`);
  return lines.join("\n");
}

/**
 * A `search_docs` answer in Markdown: each passage's heading in bold with its file as code, then
 * the passage quoted (a blockquote keeps its paragraphs and code blocks together); then the first
 * code block a passage has, when no quote holds one already.
 */
function docsAnswer(hits: PlainObject[]): string {
  const quote = (text: string) =>
    text
      .split("\n")
      .map((line) => (line.trim() ? `> ${line}` : ">"))
      .join("\n");
  const passages = hits.map(
    (hit) =>
      `**${String(hit.heading || hit.path)}** (\`${String(hit.path)}\`)\n\n${quote(String(hit.excerpt))}`,
  );
  const quotesCode = hits.some((hit) => /^\s*(```|~~~)/m.test(String(hit.excerpt)));
  const code = quotesCode ? undefined : hits.find((hit) => typeof hit.code === "string")?.code;
  return ["From the docs:", ...passages, ...(code ? [String(code)] : [])].join("\n\n");
}

type Reply = { calls: Array<[string, PlainObject]> } | { text: string };

function usageOf(inputChars: number, outputChars: number): LanguageModelV4Usage {
  const input = Math.max(1, Math.ceil(inputChars / 4));
  const output = Math.max(1, Math.ceil(outputChars / 4));
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

/** An offline, rule-based demo model: answers a few phrasings with real tool calls. */
export function createDemoModel(options: DemoModelOptions = {}): LanguageModelV4 {
  const now = options.now ?? (() => new Date());

  function decide(call: LanguageModelV4CallOptions): Reply {
    const names = new Set(
      (call.tools ?? []).filter((t) => t.type === "function").map((t) => t.name),
    );
    const prefix =
      options.resource ??
      (names.has("todos_list")
        ? "todos"
        : ([...names].find((name) => name.endsWith("_list"))?.slice(0, -5) ?? "todos"));
    const hasDocs = names.has("search_docs");
    const tool = (method: string) => `${prefix}_${method}`;
    const { text, results } = readPrompt(call);
    const intent = parseIntent(text, now(), hasDocs);
    const missing = (name: string): Reply => ({
      text: `The tool ${name} is not available to you, so I cannot do that (offline demo).`,
    });

    const last = results.at(-1);
    if (!last) {
      switch (intent.kind) {
        case "create":
          if (!names.has(tool("create"))) return missing(tool("create"));
          return {
            calls: [
              [
                tool("create"),
                { title: intent.title, ...(intent.dueDate ? { dueDate: intent.dueDate } : {}) },
              ],
            ],
          };
        case "list": {
          const list = intent.resource ? `${intent.resource}_list` : tool("list");
          if (!names.has(list)) return missing(list);
          return { calls: [[list, {}]] };
        }
        case "complete":
        case "delete":
          if (!names.has(tool("list"))) return missing(tool("list"));
          return { calls: [[tool("list"), { filter: { title: intent.title } }]] };
        case "docs":
          return { calls: [["search_docs", { query: intent.query }]] };
        default:
          return { text: helpText(prefix, hasDocs) };
      }
    }

    if (last.denied) return { text: "Okay, I did not do that (the call was not approved)." };
    // The tool card already shows the error; the reply does not say it a second time.
    if (!last.ok) return { text: "That did not work: the tool refused it (its card says why)." };
    const data = dataOf(last.value);

    if (
      (intent.kind === "complete" || intent.kind === "delete") &&
      last.toolName === tool("list")
    ) {
      const rows = Array.isArray(data) ? (data as PlainObject[]) : [];
      const found = rows.find((row) => row.id !== undefined) as PlainObject | undefined;
      if (!found) return { text: `I found no todo titled ${quoted(intent.title)}.` };
      const id = String(found.id);
      if (intent.kind === "delete") {
        if (!names.has(tool("delete"))) return missing(tool("delete"));
        return { calls: [[tool("delete"), { id }]] };
      }
      if (names.has(tool("complete"))) return { calls: [[tool("complete"), { id }]] };
      if (names.has(tool("update"))) {
        return { calls: [[tool("update"), { id, completed: true }]] };
      }
      return missing(tool("complete"));
    }

    const record = (typeof data === "object" && data !== null ? data : {}) as PlainObject;
    if (last.toolName === tool("create")) {
      const due = typeof record.dueDate === "string" ? ` (due ${record.dueDate.slice(0, 10)})` : "";
      return { text: `Added ${quoted(record.title ?? "the todo")}${due}.` };
    }
    if (last.toolName === tool("complete") || last.toolName === tool("update")) {
      const title = record.title ?? (intent.kind === "complete" ? intent.title : "the todo");
      return {
        text:
          intent.kind === "complete" ? `Completed ${quoted(title)}.` : `Updated ${quoted(title)}.`,
      };
    }
    if (last.toolName === tool("delete")) {
      const title = record.title ?? (intent.kind === "delete" ? intent.title : "the todo");
      return { text: `Deleted ${quoted(title)}.` };
    }
    if (intent.kind === "list" && intent.resource && last.toolName === `${intent.resource}_list`) {
      const rows = Array.isArray(data) ? (data as PlainObject[]) : [];
      if (rows.length === 0) return { text: `There are no ${intent.resource}.` };
      const lines = rows.map((row) => `- ${String(row.title ?? row.name ?? row.id)}`);
      return { text: `The ${intent.resource} (${rows.length}):\n${lines.join("\n")}` };
    }
    if (last.toolName === tool("list")) {
      const rows = Array.isArray(data) ? (data as PlainObject[]) : [];
      if (rows.length === 0) return { text: "You have no todos." };
      const titles = rows.map(
        (row) => `- ${String(row.title ?? row.name ?? row.id)}${row.completed ? " (done)" : ""}`,
      );
      return {
        text: `You have ${rows.length} todo${rows.length === 1 ? "" : "s"}:\n${titles.join("\n")}`,
      };
    }
    if (last.toolName === "search_docs") {
      const hits = Array.isArray(data) ? (data as PlainObject[]) : [];
      if (hits.length === 0) return { text: "I found nothing about that in the docs." };
      return { text: docsAnswer(hits.slice(0, 3)) };
    }
    return { text: "Done." };
  }

  function contentOf(reply: Reply): LanguageModelV4Content[] {
    if ("text" in reply) return [{ type: "text", text: reply.text }];
    return reply.calls.map(([toolName, input]) => ({
      type: "tool-call",
      toolCallId: `demo-${randomUUID()}`,
      toolName,
      input: JSON.stringify(input),
    }));
  }

  function generate(call: LanguageModelV4CallOptions): LanguageModelV4GenerateResult {
    const reply = decide(call);
    const content = contentOf(reply);
    const outputChars = "text" in reply ? reply.text.length : JSON.stringify(reply.calls).length;
    return {
      content,
      finishReason:
        "text" in reply
          ? { unified: "stop", raw: "stop" }
          : { unified: "tool-calls", raw: "tool_calls" },
      usage: usageOf(JSON.stringify(call.prompt).length, outputChars),
      response: { id: `demo-${randomUUID()}`, modelId: DEMO_MODEL_ID, timestamp: new Date() },
      warnings: [],
    };
  }

  return {
    specificationVersion: "v4",
    provider: "terreno",
    modelId: DEMO_MODEL_ID,
    supportedUrls: {},
    async doGenerate(call) {
      return generate(call);
    },
    async doStream(call) {
      const result = generate(call);
      const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
      parts.push({ type: "response-metadata", ...result.response });
      for (const item of result.content) {
        if (item.type === "text") {
          const id = `text-${randomUUID()}`;
          parts.push({ type: "text-start", id });
          // Word by word, as a streaming model would.
          for (const delta of item.text.match(/\S+\s*|\s+/g) ?? []) {
            parts.push({ type: "text-delta", id, delta });
          }
          parts.push({ type: "text-end", id });
        } else if (item.type === "tool-call") {
          parts.push(item);
        }
      }
      parts.push({ type: "finish", finishReason: result.finishReason, usage: result.usage });
      const delay = options.wordDelayMs ?? 0;
      const stream =
        delay > 0
          ? new ReadableStream<LanguageModelV4StreamPart>({
              async pull(controller) {
                const part = parts.shift();
                if (!part) {
                  controller.close();
                  return;
                }
                if (part.type === "text-delta") {
                  await new Promise((resolve) => setTimeout(resolve, delay));
                }
                controller.enqueue(part);
              },
            })
          : new ReadableStream<LanguageModelV4StreamPart>({
              start(controller) {
                for (const part of parts) controller.enqueue(part);
                controller.close();
              },
            });
      return { stream };
    },
  };
}
