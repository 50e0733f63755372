/**
 * Relative links in a quoted doc passage. `[options](rest.md#options)` means something next to
 * the Markdown file, not next to the chat page that renders the quote, where it is a dead link.
 * With `docsUrl` (where the docs are published) it becomes an absolute link there; without one,
 * the link's text stays and the target is cited as a path, as `search_docs` cites passages.
 */
import { posix } from "node:path";

/** `[text](target "title")`, not an image; the target without spaces, as the docs write it. */
const INLINE_LINK = /(?<!!)\[([^\]\n]+)\]\(([^)\s]+)(?:\s+"[^"\n]*")?\)/g;

/** A target with a scheme (`https:`, `mailto:`) or protocol-relative: already absolute. */
const ABSOLUTE = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/** The target as a path from the docs' root: `rest.md#x` read in `docs/mcp.md` is `docs/rest.md#x`. */
function resolvedTarget(target: string, citedPath: string): string {
  const hash = target.indexOf("#");
  const file = hash === -1 ? target : target.slice(0, hash);
  const anchor = hash === -1 ? "" : target.slice(hash);
  const base = posix.dirname(citedPath.split("\\").join("/"));
  const path = file === "" ? citedPath : posix.normalize(posix.join(base, file));
  return `${path.replace(/^\/+/, "")}${anchor}`;
}

/** `text` with each relative link of the passage at `citedPath` made to work where it is read. */
export function withResolvedLinks(text: string, citedPath: string, docsUrl?: string): string {
  // Code (fenced or inline) is quoted as written: a `[x](y)` there is not a link.
  return text
    .split(CODE)
    .map((part, index) => (index % 2 === 1 ? part : resolveLinks(part, citedPath, docsUrl)))
    .join("");
}

const CODE = /(```[\s\S]*?```|~~~[\s\S]*?~~~|`[^`\n]*`)/;

function resolveLinks(prose: string, citedPath: string, docsUrl?: string): string {
  return prose.replace(INLINE_LINK, (whole, label: string, target: string) => {
    if (ABSOLUTE.test(target)) return whole;
    const resolved = resolvedTarget(target, citedPath);
    if (docsUrl) return `[${label}](${new URL(resolved, withSlash(docsUrl)).href})`;
    return `${label} (\`${resolved}\`)`;
  });
}

function withSlash(url: string): string {
  return url.endsWith("/") ? url : `${url}/`;
}
