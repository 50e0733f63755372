/**
 * The built-in auth an app's options turn on, as ordinary plugins tried first, in this order:
 * JWT sessions, then personal access tokens (both need `auth.jwt` and a userModel). The app's
 * own `auth.providers` come after them, then the other plugins' providers.
 */
import { jwtAuthPlugin } from "../auth/jwtAuthPlugin.js";
import { personalTokensPlugin } from "../auth/personalTokensPlugin.js";
import type { TerrenoAppOptions } from "../plugin/options.js";
import type { TerrenoPlugin } from "../plugin/types.js";

export function builtInAuthPlugins(options: TerrenoAppOptions): TerrenoPlugin[] {
  const { auth, userModel } = options;
  if (!auth?.jwt) return [];
  if (!userModel) throw new Error("TerrenoApp: auth.jwt needs a userModel.");
  const path = auth.path ?? "/auth";
  return [
    jwtAuthPlugin({ userModel, jwt: auth.jwt, path }),
    ...(auth.personalTokens === false
      ? []
      : [personalTokensPlugin({ userModel, tokens: auth.personalTokens ?? {}, path })]),
  ];
}
