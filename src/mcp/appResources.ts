/**
 * MCP Apps on /mcp (`mcp: {apps: true}`): the `io.modelcontextprotocol/ui` extension in the
 * capabilities, each view's `ui://` resource in `resources/list` and `resources/read`, and the
 * `_meta.ui.resourceUri` of the tools that link one. A caller sees a view exactly when it sees
 * its tool; any other `ui://` URI answers as a resource that does not exist.
 */
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import type { ReadResourceResult, ServerCapabilities } from "@modelcontextprotocol/server";
import type { User } from "../core/types.js";
import { type AppView, type AppViews, appToolMeta } from "../tools/appViews/appViews.js";
import type { ToolDefinition } from "../tools/toolDefinitions.js";
import { canSeeTool } from "../tools/visibleTools.js";
import { type McpResourceProvider, resourceNotFound } from "./resourceProviders.js";

/** What the server declares when apps are on: resources (to read views) and the extension. */
export function appCapabilities(): Pick<ServerCapabilities, "resources" | "extensions"> {
  return {
    resources: { listChanged: false },
    extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } },
  };
}

/** A tool's `_meta` when it links a view. */
export function toolMeta(
  views: AppViews | undefined,
  name: string,
): Record<string, unknown> | undefined {
  const view = views?.forTool(name);
  return view ? appToolMeta(view) : undefined;
}

/** The views whose tools `user` sees. */
async function visibleViews(
  views: AppViews,
  tools: ReadonlyMap<string, ToolDefinition>,
  user: User | undefined,
): Promise<AppView[]> {
  const seen: AppView[] = [];
  for (const view of views.all()) {
    const tool = tools.get(view.toolName);
    if (tool && (await canSeeTool(tool, user))) seen.push(view);
  }
  return seen;
}

/**
 * The views as a resource provider (resourceProviders.ts): listed and read by the callers who
 * see their tools; any other `ui://` URI answers as a resource that does not exist.
 */
export function appResourceProvider(
  views: AppViews,
  tools: ReadonlyMap<string, ToolDefinition>,
): McpResourceProvider {
  return {
    owns: (uri) => uri.startsWith("ui://"),
    async list(caller) {
      const seen = await visibleViews(views, tools, caller.user);
      return {
        resources: seen.map((view) => ({
          uri: view.uri,
          name: view.name,
          title: view.title,
          description: view.description,
          mimeType: RESOURCE_MIME_TYPE,
        })),
      };
    },
    async read(uri, caller): Promise<ReadResourceResult> {
      const view = views.forUri(uri);
      const tool = view ? tools.get(view.toolName) : undefined;
      if (!view || !tool || !(await canSeeTool(tool, caller.user, caller.workspace)))
        throw resourceNotFound(uri);
      return {
        contents: [
          {
            uri: view.uri,
            mimeType: RESOURCE_MIME_TYPE,
            text: view.html(),
            // No remote origin at all: the view's own policy allows none either.
            _meta: {
              ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true },
            },
          },
        ],
      };
    },
  };
}
