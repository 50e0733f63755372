/**
 * `search_docs`: a read-only AI SDK tool over the app's Markdown files. Each file is split
 * into chunks by heading (path + heading + text). Ranking is lexical (MiniSearch) by default;
 * with `embeddings` configured, chunks are ranked by cosine similarity of vectors from any
 * OpenAI-compatible `/embeddings` endpoint. Answers cite `{path, heading, excerpt}`.
 */
import { readFile } from "node:fs/promises";
import { relative } from "node:path";
import { type JSONSchema7, jsonSchema, type Tool, tool } from "ai";
import MiniSearch from "minisearch";

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
}

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
  score: number;
}

export interface SearchDocsInput {
  query: string;
  limit?: number;
}

const EXCERPT_LENGTH = 300;

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

function excerptOf(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > EXCERPT_LENGTH ? `${flat.slice(0, EXCERPT_LENGTH - 1)}…` : flat;
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
    return { path: chunk.path, heading: chunk.heading, excerpt: excerptOf(chunk.text), score };
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
): Tool<SearchDocsInput, { data: DocHit[] }> {
  const index = new DocsIndex(options);
  const definition = tool<SearchDocsInput, { data: DocHit[] }, Record<string, never>>({
    description:
      "Search this app's documentation (Markdown). Returns passages citing {path, heading, " +
      "excerpt}. Input: query (1 to 200 characters), limit (1 to 10, default 5).",
    inputSchema: jsonSchema<SearchDocsInput>(INPUT_SCHEMA, { validate: validateInput }),
    execute: async ({ query, limit }) => ({ data: await index.search(query, limit ?? 5) }),
  });
  return Object.assign(definition, {
    metadata: { annotations: { readOnlyHint: true, title: "Search the documentation" } },
  });
}
