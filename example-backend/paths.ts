/**
 * Where the example's files are: its local state in `example-backend/.data` (gitignored), the
 * README and guides the chat's `search_docs` indexes, and the web page's build.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const EXAMPLE_DIR = path.dirname(fileURLToPath(import.meta.url));
export const DATA_DIR = path.join(EXAMPLE_DIR, ".data");
/** The repository root: `search_docs` cites paths relative to it (`README.md`). */
export const REPO_ROOT = path.resolve(EXAMPLE_DIR, "..");
const README_PATH = path.join(REPO_ROOT, "README.md");
/** The guides, one Markdown file per topic. */
const DOCS_DIR = path.join(REPO_ROOT, "docs");

/** What `search_docs` indexes: README.md, then every Markdown file in docs/, in name order. */
export function exampleDocPaths(): string[] {
  const guides = fs
    .readdirSync(DOCS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".md"))
    .map((entry) => path.join(DOCS_DIR, entry.name))
    .sort();
  return [README_PATH, ...guides];
}

/** A path for messages, relative to the working directory when that is shorter. */
export function displayPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith("..") ? relative : file;
}
