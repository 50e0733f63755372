/**
 * The docs check's parts that need no build: finds the ```ts / ```tsx blocks of Markdown files
 * (with their opt-out markers), writes them into a scratch project, type-checks it with the
 * TypeScript API and maps each diagnostic back to `file.md:line:column`.
 */
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

export interface CodeBlock {
  /** The Markdown file, as given (relative paths stay relative, for messages). */
  file: string;
  /** 1-based line of the opening fence. */
  fenceLine: number;
  lang: "ts" | "tsx";
  code: string;
  /** Set when the block opts out; the reason is required. */
  noCheck?: string;
}

export interface MarkerProblem {
  file: string;
  line: number;
  message: string;
}

export interface Extraction {
  blocks: CodeBlock[];
  problems: MarkerProblem[];
}

const LANGS: Record<string, "ts" | "tsx"> = { ts: "ts", typescript: "ts", tsx: "tsx" };
const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^`\s]*)\s*(.*)$/;
const NO_CHECK = /^no-check(?::\s*(.*))?$/;
const COMMENT_NO_CHECK = /^\s*<!--\s*no-check(?::\s*(.*?))?\s*-->\s*$/;

/**
 * Every fenced block in `markdown` whose language is ts, typescript or tsx. A block opts out
 * with `ts no-check: <reason>` as its info string, or `<!-- no-check: <reason> -->` on the line
 * right above its fence; a marker without a reason is a problem, not an opt-out.
 */
export function extractBlocks(file: string, markdown: string): Extraction {
  const lines = markdown.split(/\r?\n/);
  const blocks: CodeBlock[] = [];
  const problems: MarkerProblem[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? "");
    if (!open) continue;
    const [, indent = "", fence = "", info = "", rest = ""] = open;
    const closeAt = findClose(lines, i + 1, fence);
    const lang = LANGS[info.toLowerCase()];
    if (lang) {
      const body = lines.slice(i + 1, closeAt).map((line) => dedent(line, indent.length));
      let noCheck: string | undefined;
      const marker = rest.trim() ? NO_CHECK.exec(rest.trim()) : null;
      const comment = i > 0 ? COMMENT_NO_CHECK.exec(lines[i - 1] ?? "") : null;
      const found = marker ?? comment;
      if (found) {
        const reason = found[1]?.trim();
        if (reason) noCheck = reason;
        else problems.push({ file, line: i + 1, message: "no-check needs a reason" });
      }
      blocks.push({ file, fenceLine: i + 1, lang, code: body.join("\n"), noCheck });
    }
    i = closeAt;
  }
  return { blocks, problems };
}

function findClose(lines: string[], from: number, fence: string): number {
  for (let j = from; j < lines.length; j++) {
    const line = (lines[j] ?? "").trim();
    if (line.length >= fence.length && /^(`+|~+)$/.test(line) && line[0] === fence[0]) return j;
  }
  return lines.length;
}

function dedent(line: string, width: number): string {
  let n = 0;
  while (n < width && line[n] === " ") n++;
  return line.slice(n);
}

export interface Diagnostic {
  /** `README.md:12:5`, or a scratch-project path when the error is outside any block. */
  location: string;
  code: number;
  message: string;
}

export interface CheckProjectOptions {
  /** The scratch directory (emptied first); it must lie where `node_modules` resolves. */
  dir: string;
  blocks: CodeBlock[];
  /** Extra module files copied in beside the blocks, e.g. the shared declarations. */
  extraFiles?: { name: string; source: string; origin: string }[];
  /** Directories linked into the scratch `node_modules` by package name. */
  links?: Record<string, string>;
}

/** Writes the checked blocks as modules of a strict nodenext project and type-checks them. */
export function checkBlocks(options: CheckProjectOptions): Diagnostic[] {
  const { dir } = options;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, "blocks"), { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), '{"private": true, "type": "module"}\n');
  for (const [name, target] of Object.entries(options.links ?? {})) {
    const link = path.join(dir, "node_modules", name);
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(target, link, "dir");
  }

  const origins = new Map<string, { file: string; offset: number }>();
  const rootNames: string[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const extra of options.extraFiles ?? []) {
    const target = path.join(dir, extra.name);
    fs.writeFileSync(target, extra.source);
    origins.set(path.resolve(target), { file: extra.origin, offset: 0 });
    rootNames.push(target);
  }
  // One directory per Markdown file, so a block may import another block of the same file
  // that names itself on its first line (`// app.ts`) as `./app.js`.
  options.blocks.forEach((block, index) => {
    if (block.noCheck) return;
    const folder = path.join(dir, "blocks", block.file.replace(/[^A-Za-z0-9]+/g, "_"));
    fs.mkdirSync(folder, { recursive: true });
    const named = blockFileName(block);
    const target = path.join(folder, named ?? `block_L${block.fenceLine}_${index}.${block.lang}`);
    if (fs.existsSync(target)) {
      diagnostics.push({
        location: `${block.file}:${block.fenceLine + 1}:1`,
        code: 0,
        message: `another block of this file is already named ${named}`,
      });
      return;
    }
    fs.writeFileSync(target, `${block.code}\n`);
    origins.set(path.resolve(target), { file: block.file, offset: block.fenceLine });
    rootNames.push(target);
  });

  const program = ts.createProgram({
    rootNames,
    options: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      moduleDetection: ts.ModuleDetectionKind.Force,
      lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
      types: ["node"],
      jsx: ts.JsxEmit.ReactJSX,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      esModuleInterop: true,
      allowImportingTsExtensions: true,
    },
  });
  const found = ts.getPreEmitDiagnostics(program).map((diagnostic): Diagnostic => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    const source = diagnostic.file;
    if (!source || diagnostic.start === undefined) {
      return { location: "(project)", code: diagnostic.code, message };
    }
    const { line, character } = source.getLineAndCharacterOfPosition(diagnostic.start);
    const origin = origins.get(path.resolve(source.fileName));
    const location = origin
      ? `${origin.file}:${origin.offset + line + 1}:${character + 1}`
      : `${source.fileName}:${line + 1}:${character + 1}`;
    return { location, code: diagnostic.code, message };
  });
  return [...diagnostics, ...found];
}

/** `app.ts` for a block whose first line is `// app.ts` (or `// app.ts: what it is`). */
export function blockFileName(block: CodeBlock): string | undefined {
  const first = block.code.split("\n", 1)[0] ?? "";
  return /^\/\/\s*([A-Za-z0-9_.-]+\.tsx?)(?:\s|:|$)/.exec(first)?.[1];
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a Markdown file's headings (outside code fences), duplicates numbered. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const match = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!match?.[1]) continue;
    const slug = headingSlug(match[1]);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/**
 * Relative links of the given Markdown files that lead nowhere: a file that does not exist, or
 * an anchor that is no heading of the Markdown file it points into.
 */
export function checkLinks(
  files: { file: string; markdown: string }[],
  exists: (path: string) => boolean,
): MarkerProblem[] {
  const anchors = new Map(files.map((f) => [path.normalize(f.file), headingAnchors(f.markdown)]));
  const problems: MarkerProblem[] = [];
  for (const { file, markdown } of files) {
    let fenced = false;
    markdown.split(/\r?\n/).forEach((line, index) => {
      if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
      if (fenced) return;
      const prose = line.replace(/`[^`]*`/g, "");
      // Markdown links and images, and the src of an HTML <img> (pictures side by side).
      const targets = [
        ...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g),
        ...prose.matchAll(/<img\b[^>]*\bsrc="([^"]+)"/g),
      ];
      for (const match of targets) {
        const target = match[1] ?? "";
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        const [pathPart = "", anchor] = target.split("#", 2);
        const resolved = pathPart
          ? path.normalize(path.join(path.dirname(file), pathPart))
          : path.normalize(file);
        const problem = (message: string) => problems.push({ file, line: index + 1, message });
        if (pathPart && !exists(resolved)) {
          problem(`broken link: ${target} (no ${resolved})`);
          continue;
        }
        if (anchor === undefined) continue;
        const known = anchors.get(resolved);
        if (!known) problem(`link into a file that is not checked: ${target}`);
        else if (!known.has(anchor))
          problem(`broken link: ${target} (no heading #${anchor} in ${resolved})`);
      }
    });
  }
  return problems;
}
