/**
 * The first fenced code block of a docs passage, kept as Markdown (fences and language), so a
 * `search_docs` answer can quote a command or snippet whole instead of flattened into the
 * excerpt. Long blocks are cut at a line and closed again, so the Markdown stays valid.
 */

const MAX_CODE_LINES = 24;

export function firstCodeBlock(markdown: string): string | undefined {
  const lines = markdown.split(/\r?\n/);
  const start = lines.findIndex((line) => /^\s*(```|~~~)/.test(line));
  if (start < 0) return undefined;
  const opening = (lines[start] as string).trim();
  const fence = opening.startsWith("~") ? "~~~" : "```";
  const body: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim().startsWith(fence)) break;
    body.push(line);
  }
  if (body.every((line) => line.trim() === "")) return undefined;
  const kept = body.length > MAX_CODE_LINES ? [...body.slice(0, MAX_CODE_LINES), "…"] : body;
  return [opening, ...kept, fence].join("\n");
}
