/**
 * The example's web page at `/`: the built files of `example-frontend/` as they are, and its
 * index.html for any other GET a browser navigates to (a client-side route such as
 * `/conversations/abc`), so a reload lands on the page.
 *
 * API paths are never answered here, whatever the request accepts: the app's routers are
 * mounted after the plugins, so without this check a browser's `GET /todos` would get the page.
 * A request that does not ask for HTML (an API client's unknown path, a missing script) falls
 * through to the framework's JSON 404.
 */
import fs from "node:fs";
import path from "node:path";
import express, { type NextFunction, type Request, type Response } from "express";
import { type AppContext, appViewHashes, type TerrenoPlugin } from "../src/index.js";

export interface FrontendOptions {
  /** The built page: a directory holding index.html and its assets. */
  dir: string;
  /** More path prefixes that belong to the API (routes registered after this plugin). */
  reserved?: string[];
}

/** Served by the app or its plugins, never by the page. */
const API_PREFIXES = [
  "/api",
  "/auth",
  "/chat",
  "/docs",
  "/mcp",
  "/oauth",
  "/openapi.json",
  "/tools",
  "/.well-known",
];

/**
 * The page's own policy, in place of helmet's default: Vite emits same-origin module scripts
 * and stylesheets (React's `style` props are set from script, which style-src does not govern),
 * small assets may be inlined as `data:` URLs, and the page calls this origin only. No
 * `upgrade-insecure-requests`: the example runs on plain HTTP, and a browser would then ask for
 * its assets over HTTPS from a LAN address.
 *
 * The chat frames MCP App views through `srcdoc` in a sandbox (no same origin), and a `srcdoc`
 * document inherits this policy on top of its own: the views' one inline script and one
 * stylesheet are allowed by hash (appViewHashes), nothing else inline.
 */
const views = appViewHashes();
const PAGE_CSP = [
  "default-src 'self'",
  `script-src 'self' ${views.script}`,
  `style-src 'self' ${views.style}`,
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'self'",
].join("; ");

function prefixesOf(ctx: AppContext, extra: readonly string[]): string[] {
  const { options } = ctx;
  const openapi = options.openapi === false ? {} : (options.openapi ?? {});
  return [
    ...API_PREFIXES,
    ...extra,
    ...(ctx.mounts ?? []).map((mount) => mount.path),
    options.auth?.path ?? "/auth",
    options.mcp?.path ?? "/mcp",
    openapi.path ?? "/openapi.json",
    ...(typeof openapi.docsPath === "string" ? [openapi.docsPath] : []),
  ]
    .map((prefix) => prefix.toLowerCase().replace(/\/+$/, ""))
    .filter((prefix) => prefix !== "");
}

/** Express matches paths case-insensitively, so this does too. */
function isApiPath(requestPath: string, prefixes: readonly string[]): boolean {
  const lower = requestPath.toLowerCase();
  return prefixes.some((prefix) => lower === prefix || lower.startsWith(`${prefix}/`));
}

/** A browser navigation names text/html; API clients and `*` wildcards alone do not. */
function wantsPage(req: Request): boolean {
  if (req.path === "/") return true;
  if (path.posix.extname(req.path) !== "") return false; // a missing file, not a page route
  return /\btext\/html\b/i.test(req.get("accept") ?? "");
}

export function frontendPlugin(options: FrontendOptions): TerrenoPlugin {
  const dir = path.resolve(options.dir);
  const indexHtml = path.join(dir, "index.html");
  if (!fs.existsSync(indexHtml)) {
    throw new Error(`frontendPlugin: ${indexHtml} does not exist; build the page first.`);
  }
  const assets = express.static(dir, {
    index: false,
    redirect: false,
    setHeaders(res, file) {
      res.setHeader("Content-Security-Policy", PAGE_CSP);
      // Vite puts a content hash in every name under assets/: a new build means new names.
      if (path.relative(dir, file).startsWith(`assets${path.sep}`)) {
        res.setHeader("Cache-Control", "public, max-age=31536000, immutable");
      }
    },
  });

  return {
    name: "frontend",
    register(app, ctx) {
      const prefixes = prefixesOf(ctx, options.reserved ?? []);
      app.use((req: Request, res: Response, next: NextFunction) => {
        if ((req.method !== "GET" && req.method !== "HEAD") || isApiPath(req.path, prefixes)) {
          next();
          return;
        }
        assets(req, res, (error?: unknown) => {
          if (error !== undefined || !wantsPage(req)) {
            next(error);
            return;
          }
          res.setHeader("Content-Security-Policy", PAGE_CSP);
          res.setHeader("Cache-Control", "no-cache"); // a new build is picked up at once
          res.sendFile(indexHtml, (failed) => {
            if (failed) next(failed);
          });
        });
      });
    },
  };
}
