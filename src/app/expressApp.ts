/**
 * The Express app one TerrenoApp.build() returns: security headers, telemetry, logging, the
 * shutdown gate, CORS, body parsing, caller resolution, the plugins' routes, the custom tools,
 * the model routers, and JSON errors for everything else, in that order.
 */
import cors from "cors";
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import helmet from "helmet";
import { TerrenoError } from "../core/errors.js";
import type { Logger } from "../core/logger.js";
import { bodyTooDeep } from "../http/bodyErrors.js";
import { errorMiddleware, sendError } from "../http/sendError.js";
import { httpTelemetry } from "../ops/telemetry.js";
import type { AppContext, TerrenoPlugin } from "../plugin/types.js";
import { CUSTOM_TOOLS_PATH, customToolRouter } from "../rest/customToolRoutes.js";
import { restRouter } from "../rest/modelRouter.js";
import type { Mounted } from "./appContext.js";
import { requestLogger } from "./requestLogger.js";

/**
 * Response headers a cross-origin browser client must read to go on: the MCP session id (2025
 * era; without it every next request starts over), the sign-in challenge of a 401 (where the
 * OAuth metadata is) and how long a 429 asks to wait. CORS hides all but a few by default.
 */
const EXPOSED_HEADERS = [
  "Mcp-Session-Id",
  "WWW-Authenticate",
  "Retry-After",
  "Idempotent-Replayed",
];

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

export interface ExpressAppParts {
  ctx: AppContext;
  plugins: readonly TerrenoPlugin[];
  mounted: readonly Mounted[];
  /** True once the server is draining: every request is then a 503 `shutting_down`. */
  shuttingDown: () => boolean;
}

export function expressApp({ ctx, plugins, mounted, shuttingDown }: ExpressAppParts): Express {
  const { options, logger, services } = ctx;
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
    if (shuttingDown()) {
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
  for (const { path, router, resource } of mounted) {
    app.use(path, resource ? restRouter(resource, services) : router);
  }

  app.use((req: Request, res: Response) => {
    const error = new TerrenoError("not_found", `No route matches ${req.method} ${req.path}.`);
    sendError(res, error, logger);
  });
  app.use(errorMiddleware(logger));
  return app;
}
