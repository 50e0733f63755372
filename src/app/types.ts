/** Public option and plugin types for TerrenoApp. */
import type { Express } from "express";
import type { AuthProvider, CallerResolver } from "../auth/callerResolver.js";
import type { JwtAuthOptions } from "../auth/jwt.js";
import type { Logger } from "../core/logger.js";
import type { Resource } from "../core/resource.js";
import type { AnyModel } from "../core/types.js";

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
  };
  /** CORS origins; `false` or absent disables CORS headers. */
  cors?: { origins: string[] | "*"; credentials?: boolean } | false;
  /** Maximum JSON body size, e.g. `"100kb"` (default). */
  jsonLimit?: string;
  /** `true` logs one line per request to stdout; a function receives the lines. */
  logging?: boolean | ((line: string) => void);
  mcp?: McpEndpointOptions;
  /**
   * Receives every server fault (500s and outages) from REST, MCP and AI tools, with the
   * cause. pino's signature (`logger.error(object, message)`); default: the console.
   */
  logger?: Logger;
}

export interface AppContext {
  logger: Logger;
  resolveCaller: CallerResolver;
  resources: readonly Resource[];
  options: TerrenoAppOptions;
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
}
