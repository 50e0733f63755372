/**
 * One build's plugins, in order, and the AppContext they are all handed: the single handle a
 * plugin gets to the app (its logger, connection, caller resolution, services, limits, views).
 */
import type { Router } from "express";
import type { Connection } from "mongoose";
import { type AuthProvider, createCallerResolver } from "../auth/callerResolver.js";
import type { Resource } from "../core/resource.js";
import { defineResource } from "../core/resource.js";
import { mcpPlugin } from "../mcp/endpoint.js";
import { openApiPlugin } from "../openapi/plugin.js";
import type { ChangeLog } from "../ops/changeLog.js";
import { changeRoutesPlugin } from "../ops/changeRoutes.js";
import type { RateLimits } from "../ops/rateLimit.js";
import type { TerrenoAppOptions } from "../plugin/options.js";
import type { AppContext, OpenApiHelpers, TerrenoPlugin } from "../plugin/types.js";
import { CUSTOM_TOOLS_PATH } from "../rest/customToolRoutes.js";
import { restRouter } from "../rest/modelRouter.js";
import type { ToolDefinition } from "../tools/toolDefinitions.js";
import type { Workspaces } from "../workspaces/directory.js";
import { workspaceRoutesPlugin } from "../workspaces/routes.js";
import type { AppState } from "./appState.js";
import { builtInAuthPlugins } from "./authPlugins.js";

/** A router registered with the app, at its path; `resource` when modelRouter() made it. */
export interface Mounted {
  path: string;
  router: Router;
  resource?: Resource;
}

/**
 * The plugins every app has, registered after the app's own like any other: the MCP
 * endpoint (unless `mcp.enabled` is false; it mounts nothing without tools) and
 * `GET /openapi.json` with `/docs` (unless `openapi: false`). The built-in auth plugins
 * (builtInAuthPlugins) come before the app's own.
 */
function defaultPlugins(options: TerrenoAppOptions): TerrenoPlugin[] {
  return [
    ...(options.mcp?.enabled === false ? [] : [mcpPlugin(options.mcp)]),
    ...(options.openapi === false ? [] : [openApiPlugin(options.openapi)]),
  ];
}

/** What an app hands appContext(): its options, registrations and derived state. */
export interface AppParts {
  options: TerrenoAppOptions;
  plugins: readonly TerrenoPlugin[];
  mounted: readonly Mounted[];
  resources: readonly Resource[];
  customTools: readonly ToolDefinition[];
  state: AppState;
  rateLimits: RateLimits;
  connection: Connection;
  /** The app's workspaces, when `options.workspaces` turns them on. */
  workspaces?: Workspaces;
  /** The change records, when `options.changes` turns them on: `/changes` is served. */
  changes?: ChangeLog;
}

/**
 * `/workspaces` and `/invitations` (src/workspaces/routes.ts), when the app's workspaces are in
 * the framework's models: an app that looks memberships up itself (`membershipsOf`) manages
 * them itself too.
 */
function workspaceRoutes(parts: AppParts): TerrenoPlugin[] {
  const { workspaces } = parts;
  const options = parts.options.workspaces;
  if (!workspaces || (typeof options === "object" && options.membershipsOf)) return [];
  return [workspaceRoutesPlugin(workspaces, parts.connection)];
}

/**
 * One build's plugins in order (built-in auth, workspace routes, the app's own, MCP, OpenAPI)
 * and their context.
 */
export function appContext(parts: AppParts): { plugins: TerrenoPlugin[]; ctx: AppContext } {
  const { options, state, rateLimits, mounted } = parts;
  const { services } = state;
  const authPlugins = builtInAuthPlugins(options);
  // The workspace routes come right after the auth routes, ahead of the app's own plugins.
  const plugins = [
    ...authPlugins,
    ...workspaceRoutes(parts),
    ...(parts.changes ? [changeRoutesPlugin(parts.changes)] : []),
    ...parts.plugins,
    ...defaultPlugins(options),
  ];
  // Tried in order: the built-in auth, the app's own `auth.providers`, then the plugins'.
  const providersOf = (list: readonly TerrenoPlugin[]): AuthProvider[] =>
    list.flatMap((plugin) => (plugin.authProvider ? [plugin.authProvider] : []));
  const providers = [
    ...providersOf(authPlugins),
    ...(options.auth?.providers ?? []),
    ...providersOf(plugins.slice(authPlugins.length)),
  ];
  const ctx: AppContext = {
    logger: services.logger,
    connection: parts.connection,
    resolveCaller: createCallerResolver(providers),
    resources: parts.resources,
    options,
    services,
    mounts: mounted.flatMap((m) => (m.resource ? [{ path: m.path, resource: m.resource }] : [])),
    ...(rateLimits.enabled ? { rateLimits } : {}),
    rateLimiter: (name, window) => rateLimits.limiter(name, window),
    ...(state.appViews ? { appViews: state.appViews } : {}),
    ...(parts.customTools.length > 0 ? { customTools: [...parts.customTools] } : {}),
    authorizationServers: parts.plugins.flatMap((plugin) =>
      plugin.authorizationServer ? [plugin.authorizationServer] : [],
    ),
    openApiContributors: plugins.flatMap((plugin) =>
      plugin.openApi
        ? [(helpers: OpenApiHelpers) => plugin.openApi?.(helpers) ?? { paths: {} }]
        : [],
    ),
    modelRouter: (model, routerOptions) =>
      restRouter(defineResource(model, routerOptions), services),
  };
  if (ctx.customTools) {
    const taken = mounted.find(
      (m) => m.path.toLowerCase().replace(/\/+$/, "") === CUSTOM_TOOLS_PATH,
    );
    if (taken) {
      throw new Error(
        `TerrenoApp: ${CUSTOM_TOOLS_PATH} serves the custom tools (app.tool()); register the router at another path.`,
      );
    }
  }
  return { plugins, ctx };
}
