/**
 * The OpenAPI plugin: `GET /openapi.json` (OpenAPI 3.1, built once from the REST views of the
 * routers registered with the app) and `GET /docs`, a Swagger UI page served entirely from this
 * server (the `swagger-ui-dist` assets of `swagger-ui-express`; no CDN, works offline). The
 * docs page gets a Content-Security-Policy of its own that lets the UI run and fetch only from
 * this origin. TerrenoApp adds it by default; `openapi: false` turns it off.
 */
import type { Express, NextFunction, Request, Response } from "express";
import helmet from "helmet";
import swaggerUi from "swagger-ui-express";
import { DEFAULT_PERSONAL_TOKEN_OPTIONS } from "../auth/personalTokens.js";
import type { AppContext, TerrenoPlugin } from "../plugin/types.js";
import { buildOpenApiDocument } from "./document.js";
import { openApiHelpers } from "./pluginPaths.js";
import type { OpenApiObject, OpenApiOptions, OpenApiSource } from "./types.js";

/**
 * What the document is generated from: the app's options, its mounted routers and custom tools,
 * and the plugins' own routes.
 */
export function openApiSource(ctx: AppContext, options: OpenApiOptions = {}): OpenApiSource {
  const app = ctx.options;
  const jwt = app.auth?.jwt;
  const personalTokens =
    jwt && app.userModel && app.auth?.personalTokens !== false
      ? { ...DEFAULT_PERSONAL_TOKEN_OPTIONS, ...(app.auth?.personalTokens ?? {}) }
      : undefined;
  const source: OpenApiSource = {
    info: {
      title: options.title ?? app.mcp?.name ?? "API",
      version: options.version ?? app.mcp?.version ?? "0.0.0",
      ...(options.description ? { description: options.description } : {}),
    },
    mounts: ctx.mounts ?? ctx.resources.map((resource) => ({ path: "", resource })),
    bearer: (app.auth?.providers?.length ?? 0) > 0,
    rateLimited: ctx.rateLimits !== undefined,
    ...(ctx.customTools?.length ? { customTools: ctx.customTools } : {}),
  };
  if (jwt && app.userModel) {
    source.auth = {
      path: app.auth?.path ?? "/auth",
      userModel: app.userModel,
      signupFields: (jwt.signupFields ?? ["name"]).filter((f) => app.userModel?.schema.path(f)),
      ...(personalTokens
        ? {
            personalTokens: {
              maxExpiresInDays: personalTokens.maxExpiresInDays,
              defaultExpiresInDays: personalTokens.defaultExpiresInDays,
            },
          }
        : {}),
    };
  }
  return withPluginPaths(ctx, source);
}

/** The source with the plugins' own routes, each plugin handed this document's helpers. */
function withPluginPaths(ctx: AppContext, source: OpenApiSource): OpenApiSource {
  if (ctx.openApiContributors.length === 0) return source;
  const helpers = openApiHelpers(source);
  return {
    ...source,
    contributions: ctx.openApiContributors.map((contribute) => contribute(helpers)),
  };
}

/** `/docs` → `../openapi.json`: resolved from the docs page, so it works under a path prefix. */
function relativeFromDocs(docsPath: string, target: string): string {
  const depth = docsPath.split("/").filter(Boolean).length;
  return `${"../".repeat(depth)}${target.replace(/^\/+/, "")}`;
}

/**
 * The docs page runs Swagger UI's own scripts and styles from this origin, with inline styles
 * (the UI sets them), `data:` images (its icons), and fetches only this origin. No
 * `upgrade-insecure-requests`: it would break the page on plain-HTTP development hosts.
 */
const docsCsp = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", "data:"],
    fontSrc: ["'self'", "data:"],
    connectSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'self'"],
  },
});

export function openApiPlugin(options: OpenApiOptions = {}): TerrenoPlugin {
  const documentPath = options.path ?? "/openapi.json";
  const docsPath = options.docsPath === false ? undefined : (options.docsPath ?? "/docs");
  return {
    name: "openapi",
    register(app: Express, ctx: AppContext) {
      let document: OpenApiObject | undefined;
      app.get(documentPath, (_req: Request, res: Response) => {
        // Built on first request: every router is registered by then, and it never changes.
        document ??= buildOpenApiDocument(openApiSource(ctx, options));
        res.json(document);
      });
      if (!docsPath) return;
      const base = docsPath.replace(/\/+$/, "");
      const url = relativeFromDocs(base, documentPath);
      const uiOptions: swaggerUi.SwaggerUiOptions = {
        customSiteTitle: options.title ?? ctx.options.mcp?.name ?? "API reference",
        swaggerUrl: url,
        swaggerOptions: {
          url,
          // Swagger UI would otherwise send the document to validator.swagger.io for a badge.
          validatorUrl: null,
          deepLinking: true,
        },
      };
      const page = swaggerUi.setup(undefined, uiOptions);
      // The page's relative asset URLs need the trailing slash: `/docs` → `/docs/`.
      app.get(base, docsCsp, (req: Request, res: Response, next: NextFunction) => {
        const [pathname, query] = req.originalUrl.split("?");
        if (!pathname.endsWith("/")) {
          res.redirect(301, `${pathname}/${query === undefined ? "" : `?${query}`}`);
          return;
        }
        page(req, res, next);
      });
      // swagger-ui-init.js (with the options above) and the swagger-ui-dist assets.
      app.use(base, docsCsp, ...swaggerUi.serveFiles(undefined, uiOptions));
    },
  };
}
