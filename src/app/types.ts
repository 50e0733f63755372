/** Public option and plugin types for TerrenoApp. */
import type { Express } from "express";
import type { HelmetOptions } from "helmet";
import type { Connection } from "mongoose";
import type { AuthProvider, CallerResolver } from "../auth/callerResolver.js";
import type { JwtAuthOptions } from "../auth/jwt.js";
import type { PersonalTokenOptions } from "../auth/personalTokens.js";
import type { Logger } from "../core/logger.js";
import type { Resource } from "../core/resource.js";
import type { AnyModel, OperationObserver } from "../core/types.js";
import type { McpOAuthOptions } from "../mcp/resourceMetadata.js";
import type { MountedResource } from "../openapi/document.js";
import type { OpenApiOptions } from "../openapi/plugin.js";
import type { AuditSink } from "../ops/audit.js";
import type { RateLimitOptions, RateLimits } from "../ops/rateLimit.js";
import type { DiscoveryOptions } from "../tools/discovery/discoveryTools.js";
import type { ToolDefinition } from "../tools/toolDefinitions.js";

export interface McpEndpointOptions {
  /** Default `/mcp`. */
  path?: string;
  /** Set false to never mount the endpoint. Default true (mounted when a router opts in). */
  enabled?: boolean;
  /** Browser origins allowed to call the endpoint; requests without `Origin` are always allowed. */
  allowedOrigins?: string[];
  /** Server name reported to MCP clients. */
  name?: string;
  version?: string;
  /**
   * The endpoint's canonical URL, e.g. `https://api.example.com/mcp`: the `resource` of its
   * OAuth Protected Resource Metadata and the audience OAuth access tokens must be issued for.
   * Default: derived per request from its protocol and Host (`http://127.0.0.1:4000/mcp`);
   * set it in production.
   */
  resourceUrl?: string;
  /**
   * The OAuth side of the endpoint's Protected Resource Metadata (RFC 9728), served at
   * `/.well-known/oauth-protected-resource/mcp`: the authorization servers MCP clients may get
   * tokens from, and the scopes they may ask for.
   */
  oauth?: McpOAuthOptions;
  /**
   * Discovery tools: `describe_models` (the models, fields and relationships the caller can
   * reach, with a fuzzy `query`) and `whoami` (who the caller is). `true`, or options such as
   * `{whoamiFields: ["name"]}` (the user fields whoami returns; default `["name"]`). Signed-in
   * callers only; read-only. Default off.
   */
  discovery?: boolean | DiscoveryOptions;
}

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
}

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
  /** Put in every RequestContext: turns the core's write records into audit events. */
  observer?: OperationObserver;
  /** The app's rate limits, when on: /mcp spends tool-call points through it. */
  rateLimits?: RateLimits;
  /** The model routers with the paths they are mounted at (OpenAPI reads them). */
  mounts?: readonly MountedResource[];
  /** The custom tools (`app.tool(...)`), served at `POST /tools/<name>` (OpenAPI reads them). */
  customTools?: readonly ToolDefinition[];
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
  /** An audit sink contributed by the plugin (e.g. `auditToMongo()`), next to `onAudit`. */
  onAudit?: AuditSink;
  /**
   * An OAuth authorization server the plugin runs (`terreno-mcp/oauth`): its `issuer` joins the
   * `authorization_servers` of /mcp's Protected Resource Metadata, and its `resource` (the MCP
   * URL its tokens are issued for) becomes `mcp.resourceUrl` when that is not set.
   */
  authorizationServer?: { issuer: string; resource: string };
}
