/**
 * The MCP Apps views of an app's tools (`mcp: {apps: true}`): each model's list tool links a
 * table and its read tool a record card, as `ui://terreno/<tool>` resources of MIME type
 * `text/html;profile=mcp-app`. Built once from the tool definitions; the HTML of each view on
 * first read. The MCP endpoint serves them as resources and the chat hands them to its page;
 * both show a view only to a caller who sees its tool.
 */
import { RESOURCE_URI_META_KEY } from "@modelcontextprotocol/ext-apps/server";
import type { ToolDefinition } from "../toolDefinitions.js";
import { type ViewConfig, viewConfigFor } from "./viewConfig.js";
import { viewHtml } from "./viewHtml.js";

export interface AppView {
  uri: string;
  /** The tool whose results it draws. */
  toolName: string;
  name: string;
  title: string;
  description: string;
  config: ViewConfig;
  /** The view's HTML, built on first use and kept. */
  html(): string;
}

export interface AppViews {
  /** The view linked to this tool, if it has one. */
  forTool(name: string): AppView | undefined;
  /** The view at this `ui://` URI, if there is one. */
  forUri(uri: string): AppView | undefined;
  all(): readonly AppView[];
}

/** What a tool with a view carries in `_meta` (both the current and the legacy key). */
export function appToolMeta(view: AppView): Record<string, unknown> {
  return { ui: { resourceUri: view.uri }, [RESOURCE_URI_META_KEY]: view.uri };
}

export function createAppViews(tools: readonly ToolDefinition[]): AppViews {
  const byTool = new Map<string, AppView>();
  const byUri = new Map<string, AppView>();
  for (const tool of tools) {
    const config = viewConfigFor(tool, tools);
    if (!config) continue;
    let html: string | undefined;
    const what = config.kind === "list" ? "table" : "record card";
    const view: AppView = {
      uri: `ui://terreno/${tool.name}`,
      toolName: tool.name,
      name: `${tool.name}_view`,
      title: `${config.title} ${what}`,
      description: `The ${what} the ${tool.name} tool's results are shown in.`,
      config,
      html: () => {
        html ??= viewHtml(config);
        return html;
      },
    };
    byTool.set(tool.name, view);
    byUri.set(view.uri, view);
  }
  const views = [...byTool.values()];
  return {
    forTool: (name) => byTool.get(name),
    forUri: (uri) => byUri.get(uri),
    all: () => views,
  };
}
