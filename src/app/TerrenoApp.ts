/**
 * TerrenoApp assembles model routers and plugins into an Express app: CORS, body parsing,
 * caller resolution, auth routes, the routers, the MCP endpoint, and JSON errors for
 * everything else. `build()` is for tests; `start()` listens and shuts down gracefully.
 */
import cors from "cors";
import express, {
  type Express,
  type NextFunction,
  type Request,
  type Response,
  type Router,
} from "express";
import helmet from "helmet";
import mongoose, { type Connection } from "mongoose";
import type { z } from "zod";
import { type AuthProvider, createCallerResolver } from "../auth/callerResolver.js";
import type { CustomToolConfig } from "../core/actionTypes.js";
import { TerrenoError } from "../core/errors.js";
import { consoleLogger, type Logger } from "../core/logger.js";
import { hiddenFieldsLookup } from "../core/present.js";
import type { Resource } from "../core/resource.js";
import { defineResource } from "../core/resource.js";
import type { HiddenFieldsLookup, OperationObserver } from "../core/types.js";
import { bodyTooDeep } from "../http/bodyErrors.js";
import { errorMiddleware, sendError } from "../http/sendError.js";
import { mcpPlugin } from "../mcp/endpoint.js";
import { openApiPlugin } from "../openapi/plugin.js";
import { type AuditSink, auditObserver } from "../ops/audit.js";
import { type RateLimit, RateLimits, type RateLimitWindow } from "../ops/rateLimit.js";
import { httpTelemetry, traceToolCall } from "../ops/telemetry.js";
import { CUSTOM_TOOLS_PATH, customToolRouter } from "../rest/customToolRoutes.js";
import { resourceOf, restRouter } from "../rest/modelRouter.js";
import { customToolDefinition, withActionAndCustomTools } from "../tools/actionTools.js";
import { type AppViews, createAppViews } from "../tools/appViews/appViews.js";
import { withDiscoveryTools } from "../tools/discovery/discoveryTools.js";
import type { Services } from "../tools/services.js";
import { buildToolDefinitions, type ToolDefinition } from "../tools/toolDefinitions.js";
import { createWorkspaces, type Workspaces } from "../workspaces/directory.js";
import { workspaceRoutesPlugin } from "../workspaces/routes.js";
import { builtInAuthPlugins } from "./authPlugins.js";
import { defaultPathFor } from "./defaultPath.js";
import type { TerrenoAppOptions } from "./options.js";
import { requestLogger } from "./requestLogger.js";
import { type RunningServer, type StartOptions, serve } from "./serve.js";
import type { AppContext, OpenApiHelpers, TerrenoPlugin } from "./types.js";

/**
 * Response headers a cross-origin browser client must read to go on: the MCP session id (2025
 * era; without it every next request starts over), the sign-in challenge of a 401 (where the
 * OAuth metadata is) and how long a 429 asks to wait. CORS hides all but a few by default.
 */
const EXPOSED_HEADERS = ["Mcp-Session-Id", "WWW-Authenticate", "Retry-After"];

interface Mounted {
  path: string;
  router: Router;
  resource?: Resource;
}

export { defaultPathFor } from "./defaultPath.js";
export type { RunningServer, StartOptions } from "./serve.js";

/**
 * REST bodies nested more than MAX_DEPTH levels are refused right after parsing (400
 * `validation_failed` naming the path), with an iterative scan, so no recursive walk (key
 * checks, schema validation, serialization) ever sees them.
 */
function limitBodyDepth(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const tooDeep = bodyTooDeep(req.body, "validation_failed");
    if (tooDeep) sendError(res, tooDeep, logger);
    else next();
  };
}

export class TerrenoApp {
  private readonly mounted: Mounted[] = [];
  private readonly plugins: TerrenoPlugin[] = [];
  private shuttingDown = false;

  constructor(readonly options: TerrenoAppOptions = {}) {}

  /** Where every surface reports server faults (`options.logger`, else the console). */
  get logger(): Logger {
    return this.options.logger ?? consoleLogger;
  }

  /** Registers a model router (at its default or a given path) or a plugin. Chainable. */
  register(routerOrPlugin: Router | TerrenoPlugin): this;
  register(path: string, router: Router): this;
  register(first: string | Router | TerrenoPlugin, second?: Router): this {
    if (typeof first === "string") {
      if (!second) throw new Error("register(path, router) needs a router.");
      this.mounted.push({ path: first, router: second, resource: resourceOf(second) });
      return this;
    }
    if (typeof first === "function") {
      const resource = resourceOf(first);
      if (!resource) {
        throw new Error("register(router) without a path needs a router made by modelRouter().");
      }
      this.mounted.push({
        path: defaultPathFor(resource.model.modelName),
        router: first,
        resource,
      });
      return this;
    }
    this.plugins.push(first);
    return this;
  }

  private readonly customTools: ToolDefinition[] = [];

  /**
   * Adds a custom tool, for what is not one model: `app.tool("todos_stats", {input, output?,
   * permissions?, annotations?, description, handler: (ctx, input) => result})`. It runs
   * through the same pipeline as every tool (caller, scope, permissions, one zod validation,
   * the error table, audit unless read-only, rate limits, telemetry), appears in `tools/list`
   * for callers it permits and in getMCPTools(), and is served at `POST /tools/<name>` (and
   * documented in OpenAPI). Anonymous callers are refused unless `allowAnonymous`. Chainable.
   */
  tool<Input extends z.ZodType = z.ZodType, Output extends z.ZodType = z.ZodType>(
    name: string,
    config: CustomToolConfig<Input, Output>,
  ): this {
    this.customTools.push(customToolDefinition(name, config as unknown as CustomToolConfig));
    return this;
  }

  /** The definitions of the custom tools added with `tool()` (e.g. for OpenAPI). */
  get customToolDefinitions(): readonly ToolDefinition[] {
    return this.customTools;
  }

  private observerCache?: { plugins: number; observer?: OperationObserver };

  /**
   * What every surface tells about writes: `onAudit` and the plugins' audit sinks behind one
   * observer (undefined when there is none). The REST routes, /mcp and getMCPTools() share it.
   */
  get observer(): OperationObserver | undefined {
    if (this.observerCache?.plugins !== this.plugins.length) {
      const sinks: AuditSink[] = [];
      if (this.options.onAudit) sinks.push(this.options.onAudit);
      for (const plugin of this.plugins) if (plugin.onAudit) sinks.push(plugin.onAudit);
      this.observerCache = {
        plugins: this.plugins.length,
        observer: auditObserver(sinks, this.logger),
      };
    }
    return this.observerCache.observer;
  }

  /**
   * The hidden fields of this app's routers, per model and surface (RequestContext.hiddenOf):
   * a populated document, or one in an action's or custom tool's result, leaves as its own
   * model's routers show it. Every surface of the app puts it in each call's context.
   */
  readonly hiddenOf: HiddenFieldsLookup = hiddenFieldsLookup(() => this.resources);

  get resources(): Resource[] {
    return this.mounted.flatMap((m) => (m.resource ? [m.resource] : []));
  }

  private rateLimitsCache?: RateLimits;

  /**
   * The app's rate limits (`options.rateLimit`), made once per app: every build() of this app,
   * and getMCPTools({app}), count in the same limiters. With the `"mongo"` store, apps on one
   * database share the counts.
   */
  get rateLimits(): RateLimits {
    this.rateLimitsCache ??= new RateLimits(
      this.options.rateLimit,
      this.logger,
      () => this.connection,
    );
    return this.rateLimitsCache;
  }

  /**
   * A named limiter on the app's store for a plugin's route, e.g. a chat route's
   * `app.rateLimiter("chat", {points: 10, duration: 10})` then `chat.middleware()`. It limits
   * even when `options.rateLimit` is off (on the memory store then).
   */
  rateLimiter(name: string, window: RateLimitWindow): RateLimit {
    return this.rateLimits.limiter(name, window);
  }

  private toolCache?: { count: number; custom: number; tools: ToolDefinition[] };

  /**
   * The MCP tool definitions of the routers registered with this app, built once (and again
   * only after another register()). The /mcp endpoint and getMCPTools() share them.
   */
  get toolDefinitions(): ToolDefinition[] {
    if (
      this.toolCache?.count !== this.mounted.length ||
      this.toolCache.custom !== this.customTools.length
    ) {
      const resources = this.resources.filter((resource) => resource.options.mcp);
      this.toolCache = {
        count: this.mounted.length,
        custom: this.customTools.length,
        tools: withDiscoveryTools(
          withActionAndCustomTools(buildToolDefinitions(resources), resources, this.customTools),
          resources,
          this.options.mcp?.discovery,
          this.options.userModel,
        ),
      };
    }
    return this.toolCache.tools;
  }

  private servicesCache?: Services;

  /**
   * The app's shared services, built once and handed whole to every surface: build()'s REST
   * routes, custom tool routes and plugins (AppContext.services), getMCPTools({app}) and the
   * chat. Every RequestContext carries them. Built again only after a register() or tool()
   * changed the tools or the audit sinks.
   */
  get services(): Services {
    const tools = this.toolDefinitions;
    const { observer } = this;
    const cached = this.servicesCache;
    if (cached?.tools !== tools || cached.observer !== observer) {
      this.servicesCache = {
        logger: this.logger,
        ...(observer ? { observer } : {}),
        hiddenOf: this.hiddenOf,
        ...(this.rateLimits.enabled ? { rateLimits: this.rateLimits } : {}),
        resources: this.resources,
        tools,
        tracer: traceToolCall,
        ...(this.workspaces ? { workspaces: this.workspaces } : {}),
      };
    }
    return this.servicesCache as Services;
  }

  private workspacesCache?: Workspaces;

  /** The app's workspaces (`options.workspaces`), made once on the app's connection; else undefined. */
  get workspaces(): Workspaces | undefined {
    const options = this.options.workspaces;
    if (!options) return undefined;
    this.workspacesCache ??= createWorkspaces(this.connection, options === true ? {} : options);
    return this.workspacesCache;
  }

  private appViewCache?: { tools: ToolDefinition[]; views: AppViews };

  /** The MCP Apps views of the tools (`mcp: {apps: true}`), rebuilt when the tools are. */
  get appViews(): AppViews | undefined {
    if (!this.options.mcp?.apps) return undefined;
    const tools = this.toolDefinitions;
    if (this.appViewCache?.tools !== tools) {
      this.appViewCache = { tools, views: createAppViews(tools) };
    }
    return this.appViewCache.views;
  }

  /**
   * The plugins every app has, registered after the app's own like any other: the MCP
   * endpoint (unless `mcp.enabled` is false; it mounts nothing without tools) and
   * `GET /openapi.json` with `/docs` (unless `openapi: false`). The built-in auth plugins
   * (builtInAuthPlugins) come before the app's own.
   */
  /**
   * `/workspaces` and `/invitations` (src/workspaces/routes.ts), when the app's workspaces are in
   * the framework's models: an app that looks memberships up itself (`membershipsOf`) manages
   * them itself too.
   */
  private workspaceRoutes(): TerrenoPlugin[] {
    const { workspaces } = this;
    const options = this.options.workspaces;
    if (!workspaces || (typeof options === "object" && options.membershipsOf)) return [];
    return [workspaceRoutesPlugin(workspaces, this.connection)];
  }

  private defaultPlugins(): TerrenoPlugin[] {
    const { options } = this;
    return [
      ...(options.mcp?.enabled === false ? [] : [mcpPlugin(options.mcp)]),
      ...(options.openapi === false ? [] : [openApiPlugin(options.openapi)]),
    ];
  }

  build(): Express {
    const { options, logger } = this;
    const authPlugins = builtInAuthPlugins(options);
    // The workspace routes come right after the auth routes, ahead of the app's own plugins.
    const plugins = [
      ...authPlugins,
      ...this.workspaceRoutes(),
      ...this.plugins,
      ...this.defaultPlugins(),
    ];
    // Tried in order: the built-in auth, the app's own `auth.providers`, then the plugins'.
    const providersOf = (list: readonly TerrenoPlugin[]): AuthProvider[] =>
      list.flatMap((plugin) => (plugin.authProvider ? [plugin.authProvider] : []));
    const providers = [
      ...providersOf(authPlugins),
      ...(options.auth?.providers ?? []),
      ...providersOf(plugins.slice(authPlugins.length)),
    ];
    const { services } = this;
    const ctx: AppContext = {
      logger,
      connection: this.connection,
      resolveCaller: createCallerResolver(providers),
      resources: this.resources,
      options,
      services,
      mounts: this.mounted.flatMap((m) =>
        m.resource ? [{ path: m.path, resource: m.resource }] : [],
      ),
      ...(this.rateLimits.enabled ? { rateLimits: this.rateLimits } : {}),
      ...(this.customTools.length > 0 ? { customTools: [...this.customTools] } : {}),
      authorizationServers: this.plugins.flatMap((plugin) =>
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
      const taken = this.mounted.find(
        (m) => m.path.toLowerCase().replace(/\/+$/, "") === CUSTOM_TOOLS_PATH,
      );
      if (taken) {
        throw new Error(
          `TerrenoApp: ${CUSTOM_TOOLS_PATH} serves the custom tools (app.tool()); register the router at another path.`,
        );
      }
    }
    this.rateLimits.prepare(this.resources);

    const app = express();
    app.disable("x-powered-by");
    app.set("trust proxy", options.trustProxy ?? false);
    // Security headers on every response (nosniff, frame and referrer policies, a strict CSP…).
    // A route serving HTML can relax the CSP for itself: its own middleware runs later and may
    // overwrite the header, e.g. `helmet.contentSecurityPolicy({directives: {…}})`.
    if (options.helmet !== false) app.use(helmet(options.helmet ?? {}));
    if (options.telemetry?.http !== false) app.use(httpTelemetry());
    if (options.logging) {
      app.use(requestLogger(typeof options.logging === "function" ? options.logging : console.log));
    }
    app.use((_req: Request, res: Response, next: NextFunction) => {
      if (this.shuttingDown) {
        res.setHeader("Connection", "close");
        sendError(
          res,
          new TerrenoError("shutting_down", "The server is shutting down; retry shortly."),
          logger,
        );
        return;
      }
      next();
    });
    if (options.cors) {
      const { origins, credentials } = options.cors;
      app.use(
        cors({
          origin: origins === "*" ? true : origins,
          credentials: credentials ?? false,
          exposedHeaders: EXPOSED_HEADERS,
        }),
      );
    }
    for (const plugin of plugins) plugin.beforeBodyParser?.(app, ctx);
    // PATCH bodies are JSON Merge Patches (RFC 7396), whose own type is also accepted.
    app.use(
      express.json({
        limit: options.jsonLimit ?? "100kb",
        type: ["application/json", "application/merge-patch+json"],
      }),
    );
    // Before anything walks the body recursively: a 400 naming where it gets too deep.
    app.use(limitBodyDepth(logger));

    const publicPaths = new Set(plugins.flatMap((plugin) => plugin.publicPaths ?? []));
    app.use(async (req: Request, res: Response, next: NextFunction) => {
      if (publicPaths.has(req.path)) return next();
      try {
        req.user = await ctx.resolveCaller(req.headers);
        next();
      } catch (error) {
        sendError(res, error, logger);
      }
    });

    for (const plugin of plugins) plugin.register?.(app, ctx);
    // POST /tools/<name>: the custom tools over REST (src/rest/customToolRoutes.ts).
    if (ctx.customTools) {
      app.use(CUSTOM_TOOLS_PATH, customToolRouter(ctx.customTools, services));
    }
    // A model router is mounted as its resource's routes wired to this app's services.
    for (const { path, router, resource } of this.mounted) {
      app.use(path, resource ? restRouter(resource, services) : router);
    }

    app.use((req: Request, res: Response) => {
      const error = new TerrenoError("not_found", `No route matches ${req.method} ${req.path}.`);
      sendError(res, error, logger);
    });
    app.use(errorMiddleware(logger));
    return app;
  }

  /** Listens (default 127.0.0.1:$PORT or 4000) and, on close or a signal, drains and disconnects. */
  start(startOptions: StartOptions = {}): Promise<RunningServer> {
    return serve(this.build(), startOptions, {
      onShutdown: () => {
        this.shuttingDown = true;
      },
      connections: () => this.connections(),
    });
  }

  /**
   * The connection the app's models live on: the user model's, else the first router's model's,
   * else the default connection of the app's `mongoose`. The framework's own collections (with
   * the `"mongo"` rate-limit store, `auditToMongo()`) go there.
   */
  get connection(): Connection {
    return this.options.userModel?.db ?? this.resources[0]?.model.db ?? mongoose.connection;
  }

  private connections(): Set<Connection> {
    const models = [this.options.userModel, ...this.resources.map((resource) => resource.model)];
    const connections = new Set<Connection>([this.connection]);
    for (const model of models) if (model) connections.add(model.db);
    return connections;
  }
}
