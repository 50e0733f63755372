/**
 * Personal access tokens as an ordinary plugin (TerrenoApp adds it with `auth.jwt` unless
 * `auth.personalTokens` is false): Bearer `tmcp_…` callers and `POST|GET /auth/tokens`,
 * `DELETE /auth/tokens/:id` (POST is rate limited per IP with the JWT auth routes).
 */

import type { AnyModel } from "../core/types.js";
import type { TerrenoPlugin } from "../plugin/types.js";
import { type PersonalTokenOptions, personalTokenProvider } from "./personalTokens.js";
import { personalTokenRoutes } from "./tokenRoutes.js";

export interface PersonalTokensPluginOptions {
  userModel: AnyModel;
  tokens?: PersonalTokenOptions;
  /** The auth path the routes go under (`<path>/tokens`). Default `/auth`. */
  path?: string;
}

export function personalTokensPlugin(options: PersonalTokensPluginOptions): TerrenoPlugin {
  const { userModel, tokens } = options;
  const path = `${options.path ?? "/auth"}/tokens`;
  return {
    name: "personal-tokens",
    authProvider: personalTokenProvider(userModel),
    register(app, ctx) {
      app.use(
        path,
        personalTokenRoutes(userModel, tokens ?? {}, ctx.logger, ctx.services.workspaces),
      );
    },
  };
}
