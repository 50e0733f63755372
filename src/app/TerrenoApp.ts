/**
 * TerrenoApp assembles model routers and plugins into an Express app: CORS, body parsing,
 * caller resolution, auth routes, the routers, the MCP endpoint, and JSON errors for
 * everything else. `build()` is for tests; `start()` listens and shuts down gracefully.
 */
import type { Express, Router } from "express";
import mongoose, { type Connection } from "mongoose";
import type { z } from "zod";
import type { CustomToolConfig } from "../core/actionTypes.js";
import { consoleLogger, type Logger } from "../core/logger.js";
import { hiddenFieldsLookup } from "../core/present.js";
import type { PromptArguments, PromptConfig, PromptDefinition } from "../core/promptTypes.js";
import type { Resource } from "../core/resource.js";
import type { HiddenFieldsLookup, OperationObserver } from "../core/types.js";
import { type ChangeLog, changeLog } from "../ops/changeLog.js";
import { idempotencyKeys } from "../ops/idempotency.js";
import { type RateLimit, RateLimits, type RateLimitWindow } from "../ops/rateLimit.js";
import type { TerrenoAppOptions } from "../plugin/options.js";
import type { TerrenoPlugin } from "../plugin/types.js";
import { resourceOf } from "../rest/modelRouter.js";
import { customToolDefinition } from "../tools/actionTools.js";
import type { AppViews } from "../tools/appViews/appViews.js";
import { checkedPrompts, promptDefinition } from "../tools/prompts.js";
import type { Services } from "../tools/services.js";
import type { ToolDefinition } from "../tools/toolDefinitions.js";
import { createWorkspaces, type Workspaces } from "../workspaces/directory.js";
import { appContext, type Mounted } from "./appContext.js";
import { type AppState, deriveAppState } from "./appState.js";
import { defaultPathFor } from "./defaultPath.js";
import { expressApp } from "./expressApp.js";
import { type RunningServer, type StartOptions, serve } from "./serve.js";

export { defaultPathFor } from "./defaultPath.js";
export type { RunningServer, StartOptions } from "./serve.js";

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
    this.assertOpen("register()");
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
    this.assertOpen("tool()");
    this.customTools.push(customToolDefinition(name, config as unknown as CustomToolConfig));
    return this;
  }

  private readonly prompts: PromptDefinition[] = [];

  /**
   * Adds a prompt: `app.prompt("review_todo", {description, arguments: {todo: z.string()},
   * complete?, permissions?, messages: (args, ctx) => [...]})`. Served as MCP `prompts/list`
   * and `prompts/get` to callers it permits (the same verdict, rate limits and telemetry as
   * tools), its arguments completed by `completion/complete`, and offered by getMCPPrompts()
   * (src/tools/prompts.ts). Chainable.
   */
  prompt<A extends PromptArguments = PromptArguments>(name: string, config: PromptConfig<A>): this {
    this.assertOpen("prompt()");
    this.prompts.push(promptDefinition(name, config as unknown as PromptConfig));
    return this;
  }

  /** The definitions of the custom tools added with `tool()` (e.g. for OpenAPI). */
  get customToolDefinitions(): readonly ToolDefinition[] {
    return this.customTools;
  }

  private frozen?: AppState;

  /**
   * What the app derives from its registrations (observer, tools, services, MCP Apps views),
   * computed once, when registration closes: at build(), or when one of them is first read.
   */
  /** The idempotency keys, on the app's database (so shared by every instance on it). */
  private readonly idempotency = idempotencyKeys(() => this.connection);

  private changesCache?: ChangeLog;

  /** The change records (`options.changes`), on the app's database; else undefined. */
  private get changes(): ChangeLog | undefined {
    const options = this.options.changes;
    if (!options) return undefined;
    this.changesCache ??= changeLog(
      () => this.connection,
      options === true ? {} : options,
      () => this.logger,
    );
    return this.changesCache;
  }

  private get state(): AppState {
    this.frozen ??= deriveAppState({
      options: this.options,
      logger: this.logger,
      plugins: this.plugins,
      resources: this.resources,
      customTools: this.customTools,
      hiddenOf: this.hiddenOf,
      rateLimits: this.rateLimits,
      idempotency: this.idempotency,
      ...(this.changes ? { changes: this.changes } : {}),
      prompts: this.prompts.length > 0 ? checkedPrompts(this.prompts) : undefined,
      workspaces: this.workspaces,
    });
    return this.frozen;
  }

  /** Registration closes when the app is built (or its tools or services are first read). */
  private assertOpen(what: string): void {
    if (!this.frozen) return;
    throw new Error(
      `TerrenoApp: ${what} after build(): register every router, plugin and tool before the app is built (or its tools or services are first read).`,
    );
  }

  /**
   * What every surface tells about writes: `onAudit` and the plugins' audit sinks behind one
   * observer (undefined when there is none). The REST routes, /mcp and getMCPTools() share it.
   */
  get observer(): OperationObserver | undefined {
    return this.state.observer;
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

  /**
   * The MCP tool definitions of the routers and tools registered with this app, built once.
   * The /mcp endpoint and getMCPTools() share them.
   */
  get toolDefinitions(): ToolDefinition[] {
    return this.state.tools;
  }

  /**
   * The app's shared services, built once and handed whole to every surface: build()'s REST
   * routes, custom tool routes and plugins (AppContext.services), getMCPTools({app}) and the
   * chat. Every RequestContext carries them.
   */
  get services(): Services {
    return this.state.services;
  }

  private workspacesCache?: Workspaces;

  /** The app's workspaces (`options.workspaces`), made once on the app's connection; else undefined. */
  get workspaces(): Workspaces | undefined {
    const options = this.options.workspaces;
    if (!options) return undefined;
    this.workspacesCache ??= createWorkspaces(this.connection, options === true ? {} : options);
    return this.workspacesCache;
  }

  /** The MCP Apps views of the tools (`mcp: {apps: true}`), built with the tools. */
  get appViews(): AppViews | undefined {
    return this.state.appViews;
  }

  /** The Express app; registration is closed from here on. May be called more than once. */
  build(): Express {
    const { plugins, ctx } = appContext({
      options: this.options,
      workspaces: this.workspaces,
      plugins: this.plugins,
      mounted: this.mounted,
      resources: this.resources,
      customTools: this.customTools,
      state: this.state,
      rateLimits: this.rateLimits,
      connection: this.connection,
      ...(this.changes ? { changes: this.changes } : {}),
    });
    this.rateLimits.prepare(this.resources);
    return expressApp({
      ctx,
      plugins,
      mounted: this.mounted,
      shuttingDown: () => this.shuttingDown,
    });
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
