/**
 * The plugin contract: what a TerrenoApp plugin may implement (TerrenoPlugin) and what it is
 * handed (AppContext). Only types, in a folder of its own below the app: the services and
 * adapters that are plugins (auth, audit, MCP, OpenAPI, chat, OAuth) import it, never src/app.
 */
import type { Express, Router } from "express";
import type { Connection } from "mongoose";
import type { AuthProvider, CallerResolver } from "../auth/callerResolver.js";
import type { ModelRouterOptions } from "../core/crudOptions.js";
import type { Logger } from "../core/logger.js";
import type { Resource } from "../core/resource.js";
import type { AnyModel, RateLimitWindow } from "../core/types.js";
import type { MountedResource, OpenApiContribution, OpenApiHelpers } from "../openapi/types.js";
import type { AuditSink } from "../ops/audit.js";
import type { RateLimit, RateLimits } from "../ops/rateLimit.js";
import type { AppViews } from "../tools/appViews/appViews.js";
import type { Services } from "../tools/services.js";
import type { ToolDefinition } from "../tools/toolDefinitions.js";
import type { TerrenoAppOptions } from "./options.js";

// The plugin contract's OpenAPI part lives with the document's types; plugins read it here.
export type { OpenApiContribution, OpenApiHelpers, OpenApiJson } from "../openapi/types.js";

export interface AppContext {
  logger: Logger;
  /**
   * The connection the app's models live on (`TerrenoApp.connection`): plugins store their own
   * collections there (audit events, rate-limit counters), never on a default connection.
   */
  connection: Connection;
  resolveCaller: CallerResolver;
  resources: readonly Resource[];
  options: TerrenoAppOptions;
  /**
   * The app's shared services (logger, audit observer, hidden fields, rate limits, tools,
   * tracer), built once: put whole in every RequestContext of every surface.
   */
  services: Services;
  /** The app's rate limits, when on: its named limiters, the auth routes' limits, the login guard. */
  rateLimits?: RateLimits;
  /**
   * A named limiter on the app's store for a plugin's route, e.g. the chat's
   * `ctx.rateLimiter("chat", {points: 10, duration: 10})` (`TerrenoApp.rateLimiter`). It limits
   * even when `options.rateLimit` is off (on the memory store then).
   */
  rateLimiter(name: string, window: RateLimitWindow): RateLimit;
  /** The MCP Apps views of the app's tools, when `mcp: {apps: true}` (the chat renders them). */
  appViews?: AppViews;
  /** The model routers with the paths they are mounted at (OpenAPI reads them). */
  mounts?: readonly MountedResource[];
  /** The custom tools (`app.tool(...)`), served at `POST /tools/<name>` (OpenAPI reads them). */
  customTools?: readonly ToolDefinition[];
  /** The OAuth authorization servers the app's plugins run (`TerrenoPlugin.authorizationServer`). */
  authorizationServers: ReadonlyArray<{ issuer: string; resource: string }>;
  /** The plugins' parts of `/openapi.json` (TerrenoPlugin.openApi), in registration order. */
  openApiContributors: ReadonlyArray<(helpers: OpenApiHelpers) => OpenApiContribution>;
  /**
   * `modelRouter(model, options)` wired to this app: its writes reach the app's audit
   * observer, spend the app's rate limits, and its faults go to the app's logger. For a
   * plugin's own models (stored chats, audit events); they are not offered as tools.
   */
  modelRouter<M extends AnyModel>(model: M, options: ModelRouterOptions<M>): Router;
}

/** Anything that adds routes or middleware: auth providers, a chat route, the MCP endpoint. */
export interface TerrenoPlugin {
  name: string;
  /** Runs before the JSON body parser (e.g. Better Auth's handler needs the raw body). */
  beforeBodyParser?(app: Express, ctx: AppContext): void;
  /** Runs after body parsing and caller resolution, before the model routers. */
  register?(app: Express, ctx: AppContext): void;
  /** Extra auth provider contributed by the plugin. */
  authProvider?: AuthProvider;
  /**
   * Request paths where the app resolves no caller, so a stale or bad token cannot refuse them
   * (the JWT plugin's signup, login and refresh_token).
   */
  publicPaths?: readonly string[];
  /** An audit sink contributed by the plugin (e.g. `auditToMongo()`), next to `onAudit`. */
  onAudit?: AuditSink;
  /**
   * An OAuth authorization server the plugin runs (`terreno-mcp/oauth`): its `issuer` joins the
   * `authorization_servers` of /mcp's Protected Resource Metadata, and its `resource` (the MCP
   * URL its tokens are issued for) becomes `mcp.resourceUrl` when that is not set.
   */
  authorizationServer?: { issuer: string; resource: string };
  /**
   * The plugin's routes in `/openapi.json`: called once, when the document is first built.
   * Routes a plugin serves but does not describe here are missing from the document.
   */
  openApi?(helpers: OpenApiHelpers): OpenApiContribution;
}
