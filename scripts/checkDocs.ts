/**
 * `npm run test:docs`: type-checks every ```ts / ```tsx block of README.md and docs/ against the
 * built package, as an app would import it (`terreno-mcp` links to this repository, so its
 * package.json `exports` point at dist/). Names the guides use without declaring them come from
 * docs/fixtures.ts. It also checks that relative links and their #anchors lead somewhere, and
 * that README.md stays a landing page (at most 250 lines). Prints `file.md:line:col` for each
 * failure and exits 1 if there is any.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  type CodeBlock,
  checkBlocks,
  checkLinks,
  extractBlocks,
  type MarkerProblem,
} from "./docsBlocks.js";

const README_MAX_LINES = 250;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function markdownFiles(): string[] {
  const found = ["README.md"];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith(".md")) found.push(rel);
    }
  };
  if (fs.existsSync(path.join(root, "docs"))) walk("docs");
  return found.sort((a, b) =>
    a === "README.md" ? -1 : b === "README.md" ? 1 : a.localeCompare(b),
  );
}

function main(): number {
  if (!fs.existsSync(path.join(root, "dist", "index.d.ts"))) {
    process.stderr.write("checkDocs: dist/ is missing; run `npm run build` first\n");
    return 1;
  }
  const blocks: CodeBlock[] = [];
  const problems: MarkerProblem[] = [];
  const files = markdownFiles().map((file) => ({
    file,
    markdown: fs.readFileSync(path.join(root, file), "utf8"),
  }));
  for (const { file, markdown } of files) {
    const found = extractBlocks(file, markdown);
    blocks.push(...found.blocks);
    problems.push(...found.problems);
  }
  problems.push(...checkLinks(files, (target) => fs.existsSync(path.join(root, target))));
  // The README is the landing page; the guides in docs/ hold the rest (issue #21).
  const readmeLines = files.find((f) => f.file === "README.md")?.markdown.split("\n").length ?? 0;
  if (readmeLines > README_MAX_LINES) {
    problems.push({
      file: "README.md",
      line: readmeLines,
      message: `is ${readmeLines} lines; keep it to ${README_MAX_LINES} and move detail into docs/`,
    });
  }
  const fixtures = "docs/fixtures.ts";
  const diagnostics = checkBlocks({
    dir: path.join(root, ".cache", "docs-check"),
    blocks,
    extraFiles: [
      {
        name: "fixtures.ts",
        source: fs.readFileSync(path.join(root, fixtures), "utf8"),
        origin: fixtures,
      },
    ],
    links: { "terreno-mcp": root },
  });
  for (const problem of problems) {
    process.stdout.write(`${problem.file}:${problem.line} ${problem.message}\n`);
  }
  const byPlace = (location: string) =>
    location.replace(/:(\d+):(\d+)$/, (_, l, c) => `:${l.padStart(6, "0")}:${c.padStart(4, "0")}`);
  diagnostics.sort((a, b) => byPlace(a.location).localeCompare(byPlace(b.location)));
  for (const diagnostic of diagnostics) {
    process.stdout.write(`${diagnostic.location} TS${diagnostic.code}: ${diagnostic.message}\n`);
  }
  const skipped = blocks.filter((block) => block.noCheck);
  const checked = blocks.length - skipped.length;
  process.stdout.write(
    `checkDocs: ${checked} blocks checked, ${skipped.length} opted out, ` +
      `${diagnostics.length + problems.length} problems\n`,
  );
  return diagnostics.length + problems.length > 0 ? 1 : 0;
}

process.exitCode = main();
