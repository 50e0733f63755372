/**
 * The built-in JWT auth as an ordinary plugin (TerrenoApp adds it when `auth.jwt` is set):
 * Bearer JWT callers, the routes under the auth path (signup, login, refresh_token, logout,
 * password, me) and the per-IP limit of the auth routes.
 */

import type { AnyModel } from "../core/types.js";
import type { AppContext, TerrenoPlugin } from "../plugin/types.js";
import { type JwtAuthOptions, jwtProvider } from "./jwt.js";
import { jwtRoutes } from "./jwtRoutes.js";

export interface JwtAuthPluginOptions {
  userModel: AnyModel;
  jwt: JwtAuthOptions;
  /** Where the routes are mounted. Default `/auth`. */
  path?: string;
}

/** The routes a stale or missing access token must not stop: no caller is resolved there. */
const PUBLIC_ROUTES = ["/signup", "/login", "/refresh_token"];

export function jwtAuthPlugin(options: JwtAuthPluginOptions): TerrenoPlugin {
  const { userModel, jwt } = options;
  const path = options.path ?? "/auth";
  return {
    name: "jwt-auth",
    authProvider: jwtProvider(userModel, jwt),
    publicPaths: PUBLIC_ROUTES.map((route) => path + route),
    beforeBodyParser(app, ctx: AppContext) {
      // Requests per client IP, refused before their bodies are parsed.
      const limit = ctx.rateLimits?.authRoutes(path);
      if (limit) app.use(limit);
    },
    register(app, ctx: AppContext) {
      app.use(
        path,
        jwtRoutes(userModel, jwt, { logger: ctx.logger, loginGuard: ctx.rateLimits?.loginGuard }),
      );
    },
  };
}
