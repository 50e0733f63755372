/**
 * The TerrenoPlugin for Better Auth: its routes, mounted before the JSON body parser, and the
 * provider that turns its sessions into callers. It imports `better-auth/node`, so it is
 * exported only from `terreno-mcp/better-auth`, never from the package root.
 */
import { toNodeHandler } from "better-auth/node";
import type { AnyModel } from "../core/types.js";
import type { TerrenoPlugin } from "../plugin/types.js";
import { type BetterAuthInstance, betterAuthProvider } from "./betterAuthProvider.js";

export const DEFAULT_BETTER_AUTH_PATH = "/api/auth";

export interface BetterAuthPluginOptions {
  /** The app's user model (with `authUserPlugin`); Better Auth users are mapped onto it by email. */
  userModel: AnyModel;
  /** Where Better Auth's routes are mounted. Default: the instance's `basePath`, else `/api/auth`. */
  basePath?: string;
  /**
   * Link a Better Auth user to an existing password (JWT) account with the same email even when
   * Better Auth has not verified that email. Default false: anyone can sign up to Better Auth
   * with any address, so linking unverified emails would hand them that account.
   */
  linkUnverifiedEmails?: boolean;
}

/**
 * Mounts Better Auth's handler at `${basePath}/*splat` before the JSON body parser (it reads
 * the raw body itself) and contributes the provider that resolves its sessions.
 */
export function betterAuthPlugin(
  auth: BetterAuthInstance,
  options: BetterAuthPluginOptions,
): TerrenoPlugin {
  const trim = (path: string) => path.replace(/\/+$/, "");
  const instancePath = trim(auth.options.basePath ?? DEFAULT_BETTER_AUTH_PATH);
  const basePath = trim(options.basePath ?? instancePath);
  if (basePath !== instancePath) {
    // Better Auth routes by the full URL, so a different mount point would 404 every request.
    throw new Error(
      `betterAuthPlugin: basePath "${basePath}" differs from the instance's "${instancePath}".`,
    );
  }
  const handler = toNodeHandler(auth);
  return {
    name: "better-auth",
    beforeBodyParser(app) {
      app.all(`${basePath}/*splat`, (req, res, next) => {
        handler(req, res).catch(next);
      });
    },
    authProvider: betterAuthProvider(auth, options),
  };
}
