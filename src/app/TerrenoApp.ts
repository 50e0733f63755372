/**
 * TerrenoApp assembles model routers and plugins into an Express app: CORS, body parsing,
 * caller resolution, auth routes, the routers, the MCP endpoint, and JSON errors for
 * everything else. `build()` is for tests; `start()` listens and shuts down gracefully.
 */
import type { Server } from "node:http";
import cors from "cors";
import express, {
  type Express,
  type NextFunction,
  type Request,
  type Response,
  type Router,
} from "express";
import mongoose from "mongoose";
import pluralize from "pluralize";
import { type AuthProvider, createCallerResolver } from "../auth/callerResolver.js";
import { jwtProvider } from "../auth/jwt.js";
import { jwtRoutes } from "../auth/jwtRoutes.js";
import { TerrenoError, toErrorBody } from "../core/errors.js";
import { consoleLogger, type Logger } from "../core/logger.js";
import type { Resource } from "../core/resource.js";
import type { User } from "../core/types.js";
import { mcpPlugin } from "../mcp/endpoint.js";
import { resourceOf } from "../rest/modelRouter.js";
import { errorMiddleware, sendError } from "../rest/sendError.js";
import { buildToolDefinitions, type ToolDefinition } from "../tools/toolDefinitions.js";
import { requestLogger } from "./requestLogger.js";
import type { AppContext, TerrenoAppOptions, TerrenoPlugin } from "./types.js";

interface Mounted {
  path: string;
  router: Router;
  resource?: Resource;
}

export interface StartOptions {
  port?: number;
  host?: string;
  /** Handle SIGTERM/SIGINT by draining and exiting. Default true. */
  handleSignals?: boolean;
  /** How long in-flight requests may take to finish on shutdown. Default 10 s. */
  shutdownTimeoutMs?: number;
}

export interface RunningServer {
  server: Server;
  url: string;
  /** Stops accepting, finishes in-flight requests, closes the database connection. */
  close(): Promise<void>;
}

/** `Todo` → `/todos`, `FoodItem` → `/food-items`. */
export function defaultPathFor(modelName: string): string {
  const kebab = modelName.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();
  const parts = kebab.split("-");
  parts[parts.length - 1] = pluralize(parts[parts.length - 1]);
  return `/${parts.join("-")}`;
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

  get resources(): Resource[] {
    return this.mounted.flatMap((m) => (m.resource ? [m.resource] : []));
  }

  private toolCache?: { count: number; tools: ToolDefinition[] };

  /**
   * The MCP tool definitions of the routers registered with this app, built once (and again
   * only after another register()). The /mcp endpoint and getMCPTools() share them.
   */
  get toolDefinitions(): ToolDefinition[] {
    if (this.toolCache?.count !== this.mounted.length) {
      const resources = this.resources.filter((resource) => resource.options.mcp);
      this.toolCache = { count: this.mounted.length, tools: buildToolDefinitions(resources) };
    }
    return this.toolCache.tools;
  }

  build(): Express {
    const { options } = this;
    const providers: AuthProvider[] = [];
    if (options.auth?.jwt) {
      if (!options.userModel) throw new Error("TerrenoApp: auth.jwt needs a userModel.");
      providers.push(jwtProvider(options.userModel, options.auth.jwt));
    }
    providers.push(...(options.auth?.providers ?? []));
    const ctx: AppContext = {
      logger: this.logger,
      resolveCaller: createCallerResolver(providers),
      resources: this.resources,
      options,
    };
    const plugins = [...this.plugins];
    // Tools come only from routers registered with this app, so two apps never share tools.
    const mcp = mcpPlugin(ctx, this.toolDefinitions, options.mcp);
    if (mcp) plugins.push(mcp);
    for (const plugin of plugins) if (plugin.authProvider) providers.push(plugin.authProvider);

    const app = express();
    app.locals.terrenoLogger = this.logger;
    app.disable("x-powered-by");
    app.set("trust proxy", false);
    if (options.logging) {
      app.use(requestLogger(typeof options.logging === "function" ? options.logging : console.log));
    }
    app.use((_req: Request, res: Response, next: NextFunction) => {
      if (this.shuttingDown) {
        res.setHeader("Connection", "close");
        sendError(
          res,
          new TerrenoError("shutting_down", "The server is shutting down; retry shortly."),
        );
        return;
      }
      next();
    });
    if (options.cors) {
      const { origins, credentials } = options.cors;
      app.use(
        cors({ origin: origins === "*" ? true : origins, credentials: credentials ?? false }),
      );
    }
    for (const plugin of plugins) plugin.beforeBodyParser?.(app, ctx);
    app.use(express.json({ limit: options.jsonLimit ?? "100kb" }));

    const authPath = options.auth?.path ?? "/auth";
    const publicAuthRoutes = new Set(
      ["/signup", "/login", "/refresh_token"].map((r) => authPath + r),
    );
    app.use(async (req: Request, res: Response, next: NextFunction) => {
      if (publicAuthRoutes.has(req.path)) return next();
      try {
        (req as Request & { user?: User }).user = await ctx.resolveCaller(req.headers);
        next();
      } catch (error) {
        sendError(res, error);
      }
    });

    if (options.auth?.jwt && options.userModel) {
      app.use(authPath, jwtRoutes(options.userModel, options.auth.jwt));
    }
    for (const plugin of plugins) plugin.register?.(app, ctx);
    for (const { path, router } of this.mounted) app.use(path, router);

    app.use((req: Request, res: Response) => {
      sendError(res, new TerrenoError("not_found", `No route matches ${req.method} ${req.path}.`));
    });
    app.use(errorMiddleware(this.logger));
    return app;
  }

  async start(startOptions: StartOptions = {}): Promise<RunningServer> {
    const app = this.build();
    const port = startOptions.port ?? Number(process.env.PORT ?? 4000);
    const host = startOptions.host ?? process.env.HOST ?? "127.0.0.1";
    // Express 5 hands listen errors (EADDRINUSE) to this callback rather than emitting them.
    const server = await new Promise<Server>((resolve, reject) => {
      const s = app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(s)));
    });
    // Node answers header overflows and malformed requests itself, as bare text; keep the JSON shape.
    server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
      if (!socket.writable) return socket.destroy();
      const failure =
        error.code === "HPE_HEADER_OVERFLOW"
          ? new TerrenoError("headers_too_large", "The request headers or URL are too large.")
          : new TerrenoError("validation_failed", "The request could not be read.");
      const body = JSON.stringify(toErrorBody(failure));
      socket.end(
        `HTTP/1.1 ${failure.status} ${failure.title}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
    const address = server.address();
    const actualPort = typeof address === "object" && address ? address.port : port;
    let closing: Promise<void> | undefined;
    const close = () => {
      closing ??= this.shutdown(server, startOptions.shutdownTimeoutMs ?? 10_000);
      return closing;
    };
    if (startOptions.handleSignals ?? true) {
      const onSignal = () => {
        close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once("SIGTERM", onSignal);
      process.once("SIGINT", onSignal);
    }
    return { server, url: `http://${host}:${actualPort}`, close };
  }

  private async shutdown(server: Server, timeoutMs: number): Promise<void> {
    this.shuttingDown = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
    await closed;
    clearTimeout(timer);
    await mongoose.disconnect();
  }
}
