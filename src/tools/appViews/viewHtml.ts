/**
 * The HTML of a generated view (`text/html;profile=mcp-app`): the ext-apps `App` bridge and the
 * view's script inlined, a stylesheet, and the view's config as a JSON data block. Its policy
 * allows exactly that script and that stylesheet by hash and nothing remote: no scripts,
 * styles, fonts, images or connections from anywhere. No record data is ever in it: records
 * arrive in the tool result, through the host.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { VIEW_CLIENT_JS } from "./viewClient.js";
import type { ViewConfig } from "./viewConfig.js";

const VIEW_CSS = `
:root { color-scheme: light dark; font: 14px/1.4 system-ui, sans-serif; }
body { margin: 0; padding: 8px; }
h1 { font-size: 15px; margin: 0 0 6px; }
h2 { font-size: 14px; margin: 0 0 6px; }
.table-scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid #8884; vertical-align: top; }
th button { font: inherit; font-weight: 600; background: none; border: 0; padding: 0; cursor: pointer; color: inherit; }
nav { display: flex; gap: 8px; align-items: center; margin-top: 6px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0; }
dt { font-weight: 600; }
dd { margin: 0; }
.status { min-height: 1.2em; margin: 6px 0 0; color: #666; }
.status.error { color: #b00020; }
.status.done { color: #2e7d32; }
.empty { color: #666; }
`;

function sha256(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

/**
 * ext-apps' self-contained build of the `App` class (`app-with-deps`: the bridge with its MCP
 * and zod code, made for views with no bundler), as one module script: its closing
 * `export {…}` becomes a binding of `McpApp`, and the view's own script follows it.
 */
function viewScript(): string {
  const file = createRequire(import.meta.url).resolve(
    "@modelcontextprotocol/ext-apps/app-with-deps",
  );
  const source = readFileSync(file, "utf8");
  const exports = /export\s*\{([^}]*)\}\s*;?\s*$/.exec(source);
  const local = exports?.[1]
    ?.split(",")
    .map((entry) => entry.trim().split(/\s+as\s+/))
    .find((names) => (names[1] ?? names[0]) === "App")?.[0];
  if (!exports || !local || /<\/script|<!--/i.test(source)) {
    throw new Error(
      "terreno-mcp: @modelcontextprotocol/ext-apps/app-with-deps has an unexpected shape; cannot inline the App bridge.",
    );
  }
  // zod (inside the bundle) would probe whether `new Function` works before the App sets it
  // jitless: under the view's policy that probe is a CSP violation report, so it is set first.
  const jitless =
    "globalThis.__zod_globalConfig = { ...globalThis.__zod_globalConfig, jitless: true };\n";
  return `${jitless}${source.slice(0, exports.index)}\nconst McpApp = ${local};\n${VIEW_CLIENT_JS}`;
}

interface ViewAssets {
  script: string;
  /** The sources a page that frames views through `srcdoc` must allow too (they inherit its CSP). */
  hashes: { script: string; style: string };
  csp: string;
}

let assets: ViewAssets | undefined;

/** Built once, on first use: the bridge is half a megabyte to read and hash. */
function viewAssets(): ViewAssets {
  if (!assets) {
    const script = viewScript();
    const hashes = { script: sha256(script), style: sha256(VIEW_CSS) };
    const csp = [
      "default-src 'none'",
      `script-src ${hashes.script}`,
      `style-src ${hashes.style}`,
      "img-src data:",
      "base-uri 'none'",
      "form-action 'none'",
    ].join("; ");
    assets = { script, hashes, csp };
  }
  return assets;
}

/** The hash sources of the views' one script and one stylesheet (`'sha256-…'`). */
export function appViewHashes(): { script: string; style: string } {
  return { ...viewAssets().hashes };
}

/** JSON inside a `<script type="application/json">`: `<` escaped, so no text can close it. */
function jsonBlock(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c");
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

export function viewHtml(config: ViewConfig): string {
  const { script, csp } = viewAssets();
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(config.title)}</title>`,
    `<style>${VIEW_CSS}</style>`,
    "</head>",
    "<body>",
    '<main id="root"><p class="status">Waiting for the tool result…</p></main>',
    `<script type="application/json" id="terreno-view-config">${jsonBlock(config)}</script>`,
    `<script type="module">${script}</script>`,
    "</body>",
    "</html>",
  ].join("\n");
}
