/**
 * The built-in credentials an app accepts, in the order they are tried: JWT sessions, then
 * personal access tokens (both need `auth.jwt` and a userModel), then the app's own providers.
 */
import type { AuthProvider } from "../auth/callerResolver.js";
import { jwtProvider } from "../auth/jwt.js";
import { personalTokenProvider } from "../auth/personalTokens.js";
import type { TerrenoAppOptions } from "./options.js";

type PersonalTokenSettings = Exclude<
  NonNullable<NonNullable<TerrenoAppOptions["auth"]>["personalTokens"]>,
  false
>;

export interface AppAuth {
  providers: AuthProvider[];
  /** The personal-token settings when their routes and provider are on. */
  personalTokens?: PersonalTokenSettings;
}

export function appAuth(options: TerrenoAppOptions): AppAuth {
  const { auth, userModel } = options;
  const providers: AuthProvider[] = [];
  if (auth?.jwt) {
    if (!userModel) throw new Error("TerrenoApp: auth.jwt needs a userModel.");
    providers.push(jwtProvider(userModel, auth.jwt));
  }
  const personalTokens =
    auth?.jwt && userModel && auth.personalTokens !== false
      ? (auth.personalTokens ?? {})
      : undefined;
  if (personalTokens && userModel) providers.push(personalTokenProvider(userModel));
  providers.push(...(auth?.providers ?? []));
  return { providers, ...(personalTokens ? { personalTokens } : {}) };
}
