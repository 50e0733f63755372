/**
 * `search_docs`: a read-only AI SDK tool over the app's Markdown files. Each file is split
 * into chunks by heading (path + heading + text). Ranking is lexical (MiniSearch) by default;
 * with `embeddings` configured, chunks are ranked by cosine similarity of vectors from any
 * OpenAI-compatible `/embeddings` endpoint. Answers cite `{path, heading, excerpt, code?}`, the
 * excerpt a quote of whole sentences and `code` the passage's first code block, with the docs'
 * example address replaced by the server's own.
 */
import { readFile } from "node:fs/promises";
import { relative } from "node:path";
import { type JSONSchema7, jsonSchema, type Tool, tool } from "ai";
import MiniSearch from "minisearch";
import { firstCodeBlock } from "./docCode.js";
import { withResolvedLinks } from "./docLinks.js";

export interface DocsEmbeddingsOptions {
  /** The OpenAI-compatible API base, e.g. `http://127.0.0.1:11434/v1` (`/embeddings` is appended). */
  baseURL: string;
  model: string;
  apiKey?: string;
}

export interface SearchDocsOptions {
  /** Markdown files to index. */
  paths: string[];
  /** Rank by embeddings instead of the lexical default. */
  embeddings?: DocsEmbeddingsOptions;
  /** Paths are cited relative to this directory. Default `process.cwd()`. */
  root?: string;
  /**
   * The port the docs' examples are written for (`localhost:4000`): in the chat, answers name
   * the server's own address (the request's origin) instead. Default 4000.
   */
  docsPort?: number;
  /**
   * Where the docs are published (e.g. `https://github.com/you/app/blob/main/`), against which
   * a passage's relative links are resolved (from the cited path). Without it, a relative link
   * reads as its text and the path it points to, since the chat page cannot open it.
   */
  docsUrl?: string;
}

/**
 * What the chat passes a `search_docs` call (the tool's context): the address the request came
 * to, e.g. `http://127.0.0.1:5123`.
 */
export type SearchDocsContext = { serverOrigin?: string };

export interface DocChunk {
  id: number;
  path: string;
  heading: string;
  text: string;
}

export interface DocHit {
  path: string;
  heading: string;
  excerpt: string;
  /** The passage's first fenced code block, as Markdown (fences included), when it has one. */
  code?: string;
  score: number;
}

export interface SearchDocsInput {
  query: string;
  limit?: number;
}

const EXCERPT_LENGTH = 300;
/**
 * A first sentence longer than an excerpt is still quoted whole up to this length, so the quote
 * ends where the sentence does; past it (a run-on, a list written as one line) it is cut.
 */
const LONGEST_SENTENCE = 2 * EXCERPT_LENGTH;
/** The port the docs' examples use (`app.start()`'s default). */
const DOCS_PORT = 4000;

/** Splits Markdown into chunks at each ATX heading (outside code fences). */
export function chunkMarkdown(path: string, markdown: string): Omit<DocChunk, "id">[] {
  const chunks: Omit<DocChunk, "id">[] = [];
  let heading = "";
  let lines: string[] = [];
  let fenced = false;
  const flush = () => {
    const text = lines.join("\n").trim();
    if (text || heading) chunks.push({ path, heading, text });
    lines = [];
  };
  for (const line of markdown.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const match = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (match?.[1]) {
      flush();
      heading = match[1];
      continue;
    }
    lines.push(line);
  }
  flush();
  return chunks.filter((chunk) => chunk.text.length > 0 || chunk.heading.length > 0);
}

/** The section's blocks: paragraphs (split at blank lines) and fenced code blocks, kept whole. */
function blocksOf(text: string): string[] {
  const blocks: string[] = [];
  let lines: string[] = [];
  let fenced = false;
  const flush = () => {
    const block = lines.join("\n").trim();
    if (block) blocks.push(block);
    lines = [];
  };
  for (const line of text.split("\n")) {
    const fence = /^\s*(```|~~~)/.test(line);
    if (fence && !fenced) flush();
    if (!fenced && !fence && line.trim() === "") {
      flush();
      continue;
    }
    lines.push(line);
    if (fence) {
      fenced = !fenced;
      if (!fenced) flush();
    }
  }
  flush();
  return blocks;
}

/** A paragraph's sentences: split after `.`, `!` or `?` followed by a space (not inside `a.b`). */
function sentencesOf(paragraph: string): string[] {
  return paragraph
    .replace(/[ \t]+/g, " ")
    .split(/(?<=[.!?])\s+/)
    .filter(Boolean);
}

/** The start of `text` up to `max` characters, cut between words and marked as cut. */
function cutAtWord(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const room = flat.slice(0, max);
  const space = room.lastIndexOf(" ");
  return `${(space > 0 ? room.slice(0, space) : room).trimEnd()}…`;
}

/**
 * A quote of the section: as many whole blocks and sentences as fit in EXCERPT_LENGTH characters,
 * never a word cut in half. A longer first sentence is quoted whole up to LONGEST_SENTENCE; only
 * one longer still is cut between words, with `…`.
 */
function excerptOf(text: string): string {
  const out: string[] = [];
  let used = 0;
  for (const block of blocksOf(text)) {
    const gap = out.length > 0 ? 2 : 0;
    if (used + gap + block.length <= EXCERPT_LENGTH) {
      out.push(block);
      used += gap + block.length;
      continue;
    }
    // A fenced block is quoted whole or not at all.
    if (/^\s*(```|~~~)/.test(block)) break;
    const taken: string[] = [];
    let length = used + gap;
    for (const sentence of sentencesOf(block)) {
      const extra = (taken.length > 0 ? 1 : 0) + sentence.length;
      // A section that opens with a long sentence: the whole of it beats a quote cut mid-clause.
      const opening = out.length === 0 && taken.length === 0 && sentence.length <= LONGEST_SENTENCE;
      if (length + extra > EXCERPT_LENGTH && !opening) break;
      taken.push(sentence);
      length += extra;
    }
    if (taken.length > 0) out.push(taken.join(" "));
    break;
  }
  if (out.length === 0) return cutAtWord(text, EXCERPT_LENGTH - 1);
  return out.join("\n\n");
}

/**
 * The addresses the docs' examples are written for (`app.start()`'s default port), so that an
 * answer can name the server's own address instead: `http://localhost:4000/mcp` read on a server
 * at `https://todos.example.com` is `https://todos.example.com/mcp`.
 */
function writtenAddress(port: number): RegExp {
  return new RegExp(`\\b(https?://)?(?:localhost|127\\.0\\.0\\.1):${port}\\b`, "g");
}

/** `text` with the docs' example addresses replaced by `origin` (`http://host:port`). */
function withServerAddress(text: string, origin: string, port = DOCS_PORT): string {
  const host = origin.replace(/^https?:\/\//, "");
  return text.replace(writtenAddress(port), (_match, scheme: string | undefined) =>
    scheme ? origin : host,
  );
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

async function embed(options: DocsEmbeddingsOptions, input: string[]): Promise<number[][]> {
  const url = `${options.baseURL.replace(/\/+$/, "")}/embeddings`;
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    },
    body: JSON.stringify({ model: options.model, input }),
  });
  if (!response.ok) throw new Error(`embeddings: ${response.status} from ${url}`);
  const body = (await response.json()) as { data?: Array<{ index?: number; embedding: number[] }> };
  const data = body.data ?? [];
  const out: number[][] = new Array(input.length);
  data.forEach((row, i) => {
    out[row.index ?? i] = row.embedding;
  });
  if (out.length !== input.length || out.some((v) => !Array.isArray(v))) {
    throw new Error("embeddings: the endpoint returned the wrong number of vectors");
  }
  return out;
}

/** The index behind `search_docs`: built lazily on the first search, then reused. */
export class DocsIndex {
  private chunks: DocChunk[] | undefined;
  private lexical: MiniSearch<DocChunk> | undefined;
  private vectors: Promise<number[][]> | undefined;
  private loading: Promise<DocChunk[]> | undefined;

  constructor(private readonly options: SearchDocsOptions) {}

  async load(): Promise<DocChunk[]> {
    if (this.chunks) return this.chunks;
    this.loading ??= (async () => {
      const root = this.options.root ?? process.cwd();
      const all: DocChunk[] = [];
      for (const file of this.options.paths) {
        const markdown = await readFile(file, "utf8");
        const cited = relative(root, file) || file;
        for (const chunk of chunkMarkdown(cited, markdown)) all.push({ id: all.length, ...chunk });
      }
      this.chunks = all;
      return all;
    })();
    return this.loading;
  }

  async search(query: string, limit = 5): Promise<DocHit[]> {
    const chunks = await this.load();
    if (chunks.length === 0) return [];
    if (this.options.embeddings) {
      const embeddings = this.options.embeddings;
      this.vectors ??= embed(
        embeddings,
        chunks.map((chunk) => `${chunk.heading}\n${chunk.text}`),
      );
      let vectors: number[][];
      try {
        vectors = await this.vectors;
      } catch (error) {
        this.vectors = undefined;
        throw error;
      }
      const [queryVector = []] = await embed(embeddings, [query]);
      return chunks
        .map((chunk) => ({ chunk, score: cosine(queryVector, vectors[chunk.id] ?? []) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, limit)
        .map(({ chunk, score }) => this.hit(chunk, score));
    }
    if (!this.lexical) {
      this.lexical = new MiniSearch<DocChunk>({
        fields: ["heading", "text", "path"],
        storeFields: [],
        searchOptions: { boost: { heading: 2 }, prefix: true, fuzzy: 0.2 },
      });
      this.lexical.addAll(chunks);
    }
    return this.lexical
      .search(query, { combineWith: "OR" })
      .slice(0, limit)
      .map((result) => this.hit(chunks[result.id as number] as DocChunk, result.score));
  }

  private hit(chunk: DocChunk, score: number): DocHit {
    const code = firstCodeBlock(chunk.text);
    return {
      path: chunk.path,
      heading: chunk.heading,
      excerpt: withResolvedLinks(excerptOf(chunk.text), chunk.path, this.options.docsUrl),
      ...(code ? { code } : {}),
      score,
    };
  }
}

const INPUT_SCHEMA: JSONSchema7 = {
  type: "object",
  properties: {
    query: {
      type: "string",
      minLength: 1,
      maxLength: 200,
      description: "What to look for in the app's documentation (1 to 200 characters).",
    },
    limit: {
      type: "integer",
      minimum: 1,
      maximum: 10,
      description: "How many passages to return: 1 to 10, default 5.",
    },
  },
  required: ["query"],
  additionalProperties: false,
};

function validateInput(value: unknown) {
  const input = value as Partial<SearchDocsInput> | null;
  if (typeof input !== "object" || input === null) {
    return { success: false as const, error: new Error("The input must be an object.") };
  }
  const extra = Object.keys(input).filter((key) => key !== "query" && key !== "limit");
  if (extra.length > 0) {
    return { success: false as const, error: new Error(`Unknown fields: ${extra.join(", ")}.`) };
  }
  if (
    typeof input.query !== "string" ||
    input.query.trim().length < 1 ||
    input.query.length > 200
  ) {
    return { success: false as const, error: new Error("`query` must be 1 to 200 characters.") };
  }
  if (
    input.limit !== undefined &&
    (!Number.isInteger(input.limit) || input.limit < 1 || input.limit > 10)
  ) {
    return {
      success: false as const,
      error: new Error("`limit` must be an integer from 1 to 10."),
    };
  }
  return { success: true as const, value: input as SearchDocsInput };
}

export const SEARCH_DOCS_TOOL_NAME = "search_docs";

/** The `search_docs` tool: read-only (`readOnlyHint`), so the chat plugin never gates it. */
export function searchDocsTool(
  options: SearchDocsOptions,
): Tool<SearchDocsInput, { data: DocHit[] }, SearchDocsContext> {
  const index = new DocsIndex(options);
  const port = options.docsPort ?? DOCS_PORT;
  const definition = tool<SearchDocsInput, { data: DocHit[] }, SearchDocsContext>({
    description:
      "Search this app's documentation (Markdown). Returns passages citing {path, heading, " +
      "excerpt, code (the passage's first code block, as Markdown, when it has one)}. " +
      "Input: query (1 to 200 characters), limit (1 to 10, default 5).",
    inputSchema: jsonSchema<SearchDocsInput>(INPUT_SCHEMA, { validate: validateInput }),
    execute: async ({ query, limit }, { context }) => {
      const hits = await index.search(query, limit ?? 5);
      const origin = context?.serverOrigin;
      if (!origin) return { data: hits };
      return {
        data: hits.map((hit) => ({
          ...hit,
          excerpt: withServerAddress(hit.excerpt, origin, port),
          ...(hit.code ? { code: withServerAddress(hit.code, origin, port) } : {}),
        })),
      };
    },
  });
  return Object.assign(definition, {
    metadata: { annotations: { readOnlyHint: true, title: "Search the documentation" } },
  });
}
