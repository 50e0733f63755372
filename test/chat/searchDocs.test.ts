/** search_docs: chunking by heading, lexical ranking (MiniSearch), embeddings from an OpenAI-compatible endpoint. */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { ModelMessage } from "ai";
import { firstCodeBlock } from "../../src/chat/docCode.js";
import { chunkMarkdown, type DocHit, DocsIndex, searchDocsTool } from "../../src/chat/index.js";

const GUIDE = `# Getting started

Install the package with npm and register your models.

## Connecting Claude Code

Run \`claude mcp add --transport http terreno http://localhost:3000/mcp\` and sign in.
Claude Code then lists the todos tools.

## Rate limits

Each user gets ten chat requests per ten seconds.

\`\`\`md
# not a heading inside a fence
\`\`\`
`;

const DEPLOY = `# Deployment

Set MONGODB_URI and JWT_SECRET. Put the server behind a proxy.

## Backups

Dump the database nightly.
`;

/**
 * A section longer than an excerpt: whole sentences, a URL with dots, and a run-on sentence
 * longer than even a long opening sentence may be (twice an excerpt), which is cut.
 */
const LONG = `# Connecting clients

Start the server with \`npm run example\`, then open http://localhost:4000/docs in a browser. \
The MCP endpoint is at http://127.0.0.1:4000/mcp for every client. \
Claude Code connects with one command and then lists the tools of the signed-in user. \
Each tool call runs with that user's permissions, so nobody sees another user's todos. \
Writes wait for an approval in the chat page, and read-only tools never do. \
Tokens expire after fifteen minutes and are refreshed by the page without a new sign-in.

## A run-on

${"word ".repeat(200).trim()} end.
`;

const CHAT = `# Example

## Chat

The example's \`/chat\` is the framework's chat plugin (\`terreno-mcp/chat\`, wired in
\`example-backend/chat/exampleChat.ts\`) with its defaults: the AI SDK **UI message stream** that
\`useChat\` reads, the caller's own tools (the same tools, permissions and hidden fields as \`/mcp\`),
**every write held for the user's approval**, conversations stored in the database, feedback,
telemetry and a per-user rate limit (bursts of 10, then about one request a second). A
\`search_docs\` tool answers questions about the app from README.md and the guides in \`docs/\`,
citing the file and heading.
`;

const execOptions = { toolCallId: "t", messages: [] as ModelMessage[], context: {} };

describe("search_docs", () => {
  let dir: string;
  let guide: string;
  let deploy: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "docs-"));
    guide = join(dir, "guide.md");
    deploy = join(dir, "deploy.md");
    await writeFile(guide, GUIDE);
    await writeFile(deploy, DEPLOY);
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test("chunks Markdown by heading, ignoring headings inside code fences", () => {
    const chunks = chunkMarkdown("guide.md", GUIDE);
    assert.deepEqual(
      chunks.map((chunk) => chunk.heading),
      ["Getting started", "Connecting Claude Code", "Rate limits"],
    );
    assert.ok(chunks.every((chunk) => chunk.path === "guide.md"));
    assert.match(chunks[1]?.text ?? "", /claude mcp add/);
    assert.match(chunks[2]?.text ?? "", /# not a heading inside a fence/);
  });

  test("lexical ranking: the matching section first, citing path, heading and excerpt", async () => {
    const index = new DocsIndex({ paths: [guide, deploy], root: dir });
    const hits = await index.search("connect Claude Code", 3);
    assert.ok(hits.length >= 1);
    assert.equal(hits[0]?.path, "guide.md");
    assert.equal(hits[0]?.heading, "Connecting Claude Code");
    assert.match(hits[0]?.excerpt ?? "", /claude mcp add/);
    const backups = await index.search("database backups", 1);
    assert.deepEqual(
      backups.map((hit) => [hit.path, hit.heading]),
      [["deploy.md", "Backups"]],
    );
    assert.deepEqual(await index.search("zzzqqq nothing", 5), []);
  });

  test("the tool: read-only, validated input, cites {path, heading, excerpt, code?}", async () => {
    const tool = searchDocsTool({ paths: [guide, deploy], root: dir });
    assert.equal(
      (tool as unknown as { metadata: { annotations: { readOnlyHint: boolean } } }).metadata
        .annotations.readOnlyHint,
      true,
    );
    const output = (await tool.execute?.({ query: "rate limits", limit: 2 }, execOptions)) as {
      data: DocHit[];
    };
    assert.ok(output.data.length <= 2);
    assert.equal(output.data[0]?.heading, "Rate limits");
    assert.deepEqual(Object.keys(output.data[0] ?? {}).sort(), [
      "code",
      "excerpt",
      "heading",
      "path",
      "score",
    ]);
    // The passage's code block, whole and still Markdown, for an answer to quote.
    assert.equal(output.data[0]?.code, "```md\n# not a heading inside a fence\n```");
    const noCode = (await tool.execute?.({ query: "database backups", limit: 1 }, execOptions)) as {
      data: DocHit[];
    };
    assert.equal(noCode.data[0]?.heading, "Backups");
    assert.equal("code" in (noCode.data[0] ?? {}), false, "no code key without a code block");
    const schema = tool.inputSchema as unknown as {
      validate: (value: unknown) => Promise<{ success: boolean }>;
    };
    assert.equal((await schema.validate({ query: "" })).success, false);
    assert.equal((await schema.validate({ query: "x".repeat(201) })).success, false);
    assert.equal((await schema.validate({ query: "ok", limit: 11 })).success, false);
    assert.equal((await schema.validate({ query: "ok", limit: 3 })).success, true);
  });

  test("excerpts are whole sentences, never cut mid-word; a run-on sentence ends at a word", async () => {
    const file = join(dir, "long.md");
    await writeFile(file, LONG);
    const index = new DocsIndex({ paths: [file], root: dir });
    const [hit] = await index.search("Claude Code connects", 1);
    assert.ok(hit);
    const excerpt = hit.excerpt;
    assert.ok(excerpt.length <= 300, `at most 300 characters: ${excerpt.length}`);
    assert.match(excerpt, /^Start the server/);
    // Ends at the end of a sentence, and is the start of the section's text.
    assert.match(excerpt, /[.!?]$/);
    const flat = (text: string) => text.replace(/\s+/g, " ").trim();
    const section = flat(LONG.split("## A run-on")[0] ?? "");
    assert.ok(section.includes(flat(excerpt)), "quotes the section as written");
    assert.ok(excerpt.length > 150, "as many whole sentences as fit");

    const [runOn] = await index.search("run-on", 1);
    assert.ok(runOn);
    assert.ok(runOn.excerpt.length <= 300);
    assert.match(runOn.excerpt, /^word( word)+…$/, "cut between words, marked as cut");
  });

  test("a long first sentence is quoted whole, ending at its full stop, not cut mid-clause", async () => {
    // docs/example.md's "Chat" section: its first sentence alone is longer than an excerpt.
    const file = join(dir, "chat.md");
    await writeFile(file, CHAT);
    const index = new DocsIndex({ paths: [file], root: dir });
    const [hit] = await index.search("chat plugin defaults", 1);
    assert.ok(hit);
    assert.match(hit.excerpt, /^The example's `\/chat` is the framework's/);
    assert.doesNotMatch(hit.excerpt, /…$/);
    assert.match(hit.excerpt, /about one request a second\)\.$/);
  });

  test("answers name the server's own address, not the docs' localhost:4000", async () => {
    const file = join(dir, "long.md");
    await writeFile(file, LONG);
    const tool = searchDocsTool({ paths: [file], root: dir });
    const context = { serverOrigin: "http://127.0.0.1:5123" };
    const output = (await tool.execute?.(
      { query: "MCP endpoint", limit: 1 },
      { ...execOptions, context },
    )) as { data: DocHit[] };
    const excerpt = output.data[0]?.excerpt ?? "";
    assert.match(excerpt, /http:\/\/127\.0\.0\.1:5123\/docs/);
    assert.match(excerpt, /http:\/\/127\.0\.0\.1:5123\/mcp/);
    assert.doesNotMatch(excerpt, /:4000/);
    // Without a server origin (the tool used outside the chat), the text is as written.
    const plain = (await tool.execute?.({ query: "MCP endpoint", limit: 1 }, execOptions)) as {
      data: DocHit[];
    };
    assert.match(plain.data[0]?.excerpt ?? "", /localhost:4000\/docs/);
  });

  test("relative links in a passage resolve from its file: to docsUrl, else to a cited path", async () => {
    const file = join(dir, "docs", "linked.md");
    await mkdir(join(dir, "docs"), { recursive: true });
    await writeFile(
      file,
      "# Linked\n\nSee [the options](rest.md#options), [up](../README.md), [here](#linked), " +
        "[the site](https://example.com/x) and ![a picture](images/a.png). `[code](a.md)` stays.\n",
    );
    const [plain] = await new DocsIndex({ paths: [file], root: dir }).search("Linked", 1);
    assert.equal(
      plain?.excerpt,
      "See the options (`docs/rest.md#options`), up (`README.md`), here (`docs/linked.md#linked`), " +
        "[the site](https://example.com/x) and ![a picture](images/a.png). `[code](a.md)` stays.",
    );
    const published = new DocsIndex({
      paths: [file],
      root: dir,
      docsUrl: "https://github.com/you/app/blob/main",
    });
    const [linked] = await published.search("Linked", 1);
    assert.match(
      linked?.excerpt ?? "",
      /\[the options\]\(https:\/\/github\.com\/you\/app\/blob\/main\/docs\/rest\.md#options\)/,
    );
    assert.match(
      linked?.excerpt ?? "",
      /\[up\]\(https:\/\/github\.com\/you\/app\/blob\/main\/README\.md\)/,
    );
  });

  test("a passage's first code block is kept whole; a long one is cut at a line and closed", () => {
    assert.equal(firstCodeBlock("Text only, `inline` code."), undefined);
    assert.equal(firstCodeBlock("```sh\n\n```"), undefined, "an empty block is no code");
    assert.equal(
      firstCodeBlock("Run:\n\n~~~ts\nconst a = 1;\n~~~\n\n```sh\nnpm test\n```"),
      "~~~ts\nconst a = 1;\n~~~",
    );
    const long = Array.from({ length: 40 }, (_, i) => `line ${i}`).join("\n");
    const cut = firstCodeBlock(`\`\`\`js\n${long}\n\`\`\``)?.split("\n") ?? [];
    assert.equal(cut[0], "```js");
    assert.equal(cut.at(-2), "…");
    assert.equal(cut.at(-1), "```");
    assert.equal(cut.length, 24 + 3);
    // An unclosed fence (a passage cut at a heading) is closed.
    assert.equal(firstCodeBlock("```\nls -l"), "```\nls -l\n```");
  });

  describe("embeddings", () => {
    let server: Server;
    let baseURL: string;
    const requests: Array<{ auth?: string; body: { model: string; input: string[] } }> = [];
    // Deterministic vectors: one dimension per keyword.
    const KEYWORDS = ["claude", "deploy", "backup", "limit"];
    const vectorOf = (text: string) =>
      KEYWORDS.map((word) => (text.toLowerCase().includes(word) ? 1 : 0) + 0.01);

    before(async () => {
      server = createServer((req, res) => {
        let raw = "";
        req.on("data", (chunk) => {
          raw += chunk;
        });
        req.on("end", () => {
          if (req.url !== "/v1/embeddings" || req.method !== "POST") {
            res.writeHead(404).end();
            return;
          }
          const body = JSON.parse(raw) as { model: string; input: string[] };
          requests.push({ auth: req.headers.authorization, body });
          res.writeHead(200, { "content-type": "application/json" });
          res.end(
            JSON.stringify({
              object: "list",
              data: body.input.map((text, index) => ({
                object: "embedding",
                index,
                embedding: vectorOf(text),
              })),
              model: body.model,
            }),
          );
        });
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    test("ranks by cosine similarity of the endpoint's vectors", async () => {
      const tool = searchDocsTool({
        paths: [guide, deploy],
        root: dir,
        embeddings: { baseURL, model: "test-embed", apiKey: "k1" },
      });
      const first = (await tool.execute?.({ query: "claude", limit: 1 }, execOptions)) as {
        data: DocHit[];
      };
      assert.deepEqual(
        first.data.map((hit) => [hit.path, hit.heading]),
        [["guide.md", "Connecting Claude Code"]],
      );
      const second = (await tool.execute?.({ query: "backup", limit: 1 }, execOptions)) as {
        data: DocHit[];
      };
      assert.equal(second.data[0]?.heading, "Backups");
      assert.equal(second.data[0]?.path, "deploy.md");
      // The chunks are embedded once; each query once more.
      assert.equal(requests.length, 3);
      assert.equal(requests[0]?.auth, "Bearer k1");
      assert.equal(requests[0]?.body.model, "test-embed");
      assert.equal(requests[0]?.body.input.length, 5);
    });
  });
});
