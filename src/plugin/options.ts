/** `new TerrenoApp(options)`: everything an app's options may set. */
import type { HelmetOptions } from "helmet";
import type { AuthProvider } from "../auth/callerResolver.js";
import type { JwtAuthOptions } from "../auth/jwt.js";
import type { PersonalTokenOptions } from "../auth/personalTokens.js";
import type { Logger } from "../core/logger.js";
import type { AnyModel } from "../core/types.js";
import type { McpEndpointOptions } from "../mcp/options.js";
import type { OpenApiOptions } from "../openapi/types.js";
import type { AuditSink } from "../ops/audit.js";
import type { ChangesOptions } from "../ops/changeLog.js";
import type { RateLimitOptions } from "../ops/rateLimit.js";
import type { WorkspacesOptions } from "../workspaces/directory.js";

export interface TerrenoAppOptions {
  /** The app's user model; required for the built-in JWT auth. */
  userModel?: AnyModel;
  auth?: {
    /** Enables `/auth/signup|login|refresh_token|me` and Bearer JWT callers. */
    jwt?: JwtAuthOptions;
    /**
     * Extra caller providers, tried after JWT. (Better Auth comes as a plugin instead:
     * `app.register(betterAuthPlugin(auth, {userModel}))` from `terreno-mcp/better-auth`.)
     */
    providers?: AuthProvider[];
    /** Mount point for the JWT routes. Default `/auth`. */
    path?: string;
    /**
     * Personal access tokens (`tmcp_…`, scoped read or write) for CLIs and desktop MCP clients:
     * `POST|GET /auth/tokens`, `DELETE /auth/tokens/:id`, and Bearer callers on every surface.
     * On by default with `jwt`; options set lifetimes and a per-user cap, `false` turns them off.
     */
    personalTokens?: PersonalTokenOptions | false;
  };
  /** CORS origins; `false` or absent disables CORS headers. */
  cors?: { origins: string[] | "*"; credentials?: boolean } | false;
  /**
   * Security headers from `helmet` on every response; default `{}` (helmet's defaults, including
   * a strict `Content-Security-Policy`). Pass helmet options to tune them, or `false` to send none
   * (e.g. when a proxy in front sets them).
   */
  helmet?: false | HelmetOptions;
  /** Maximum JSON body size, e.g. `"100kb"` (default). */
  jsonLimit?: string;
  /**
   * Express's `trust proxy` setting: which `X-Forwarded-For` hops to believe for the client IP
   * (per-IP rate limits, audit). Default `false`: the socket's address. Behind one load
   * balancer, `1`; or the proxies' addresses/subnets (`"10.0.0.0/8"`). Never `true` on a
   * server clients can reach directly: any client could then choose its address.
   */
  trustProxy?: boolean | number | string | string[];
  /** `true` logs one line per request to stdout; a function receives the lines. */
  logging?: boolean | ((line: string) => void);
  mcp?: McpEndpointOptions;
  /**
   * Receives every server fault (500s and outages) from REST, MCP and AI tools, with the
   * cause. pino's signature (`logger.error(object, message)`); default: the console.
   */
  logger?: Logger;
  /**
   * Called for every write (create, update, delete) on every surface (REST, MCP, AI tools),
   * done or refused, with who, where, what and the names (never values) of the fields set.
   * Awaited before the answer is sent; a sink that throws is logged and never fails the
   * request. Plugins add sinks too (`auditToMongo()`).
   */
  onAudit?: AuditSink;
  /**
   * OpenTelemetry spans and metrics through `@opentelemetry/api` (a no-op until the app
   * registers an SDK). `http: false` leaves HTTP server spans to an HTTP instrumentation
   * the app already runs; tool-call spans stay. Default: all on.
   */
  telemetry?: { http?: boolean };
  /**
   * Rate limits (rate-limiter-flexible): per-IP limits and a login lockout on the auth routes,
   * per-caller limits on REST writes and on tool calls (MCP and AI), and the store the counters
   * live in (`"memory"`, `"mongo"` to share them across instances, or `{redis}`). `{}` turns
   * them all on with the defaults (30 auth requests per minute per IP; lock after 5 failed
   * logins; 600 writes and 600 tool calls per minute per caller). Default: off.
   */
  rateLimit?: RateLimitOptions | false;
  /**
   * OpenAPI 3.1 at `GET /openapi.json`, generated from the routers' REST views, and an API
   * reference UI (Swagger UI, served from this server) at `GET /docs`. On by default; options
   * set the paths and `info`, `false` serves neither.
   */
  openapi?: OpenApiOptions | false;
  /**
   * Workspaces and memberships (src/workspaces): the models on the app's connection, the roles,
   * and the current workspace of every call (`ctx.workspace`, `X-Workspace-Id`, bound tokens).
   * `true` for the defaults. Default: off.
   */
  workspaces?: WorkspacesOptions | boolean;
  /**
   * Change records and undo (docs/safe-writes.md): every create, update, delete and action is
   * stored with who, when, where and the values it changed, served at `GET /changes` and undone
   * with `POST /changes/:id/undo`. `true` keeps them 90 days. Default: off.
   */
  changes?: ChangesOptions | boolean;
}
