/**
 * Better Auth as a second way to sign in: `createBetterAuth` builds an instance on the app's
 * own Mongoose connection; `app.register(betterAuthPlugin(auth, {userModel}))` mounts its
 * routes and resolves its sessions (cookie or `Authorization: Bearer <session token>`).
 *
 * This is the `terreno-mcp/better-auth` entry point, the only one that loads `better-auth` (an
 * optional peer dependency): the package root never imports it, so JWT-only apps need not
 * install it.
 */
import { type Auth, type BetterAuthOptions, betterAuth } from "better-auth";
import { mongodbAdapter } from "better-auth/adapters/mongodb";
import { type BearerOptions, bearer } from "better-auth/plugins/bearer";
import mongoose, { type Connection } from "mongoose";

export {
  type BetterAuthPluginOptions,
  betterAuthPlugin,
  DEFAULT_BETTER_AUTH_PATH,
} from "./betterAuthPlugin.js";
export {
  type BetterAuthInstance,
  type BetterAuthProviderOptions,
  type BetterAuthSessionUser,
  betterAuthProvider,
} from "./betterAuthProvider.js";

export interface CreateBetterAuthOptions extends Omit<BetterAuthOptions, "database" | "secret"> {
  /** Signs cookies and tokens; at least 32 random characters. Required: no env fallback. */
  secret: string;
  /** The Mongoose connection to store users and sessions on. Default `mongoose.connection`. */
  connection?: Connection;
  /**
   * Options for the always-on `bearer()` plugin. `requireSignature: true` refuses the raw
   * session token (the sign-up/sign-in body's `token`) and accepts only the signed
   * `set-auth-token` value, so a leaked `session` collection is not enough to sign in.
   */
  bearer?: BearerOptions;
}

/**
 * Creates a Better Auth instance storing its `user`, `session`, `account` and `verification`
 * collections on the app's Mongoose connection, with email and password sign-in and the
 * `bearer()` plugin enabled, and telemetry off unless asked for. Every other option is passed
 * through (`baseURL`, `basePath`, `trustedOrigins`, `session.expiresIn`, extra `plugins`...).
 *
 * Call it after Mongoose has connected (`await connectDatabase(uri)`): the adapter needs the
 * connection's `Db`. Transactions are off because standalone servers and FerretDB lack them.
 */
export function createBetterAuth(options: CreateBetterAuthOptions): TerrenoBetterAuth {
  const { connection = mongoose.connection, bearer: bearerOptions, ...rest } = options;
  const { emailAndPassword, plugins, telemetry } = rest;
  const db = connection.db;
  if (!db) {
    throw new Error("createBetterAuth: connect Mongoose first (await connectDatabase(uri)).");
  }
  return betterAuth<BetterAuthOptions>({
    ...rest,
    database: mongodbAdapter(db, { client: connection.getClient(), transaction: false }),
    emailAndPassword: { ...emailAndPassword, enabled: emailAndPassword?.enabled ?? true },
    plugins: [bearer(bearerOptions), ...(plugins ?? [])],
    telemetry: { enabled: false, ...telemetry },
  });
}

/**
 * The instance `createBetterAuth` returns: Better Auth's own `Auth` type over its general
 * options, so `auth.api.*` covers the built-in endpoints. (The fully inferred type expands to
 * some 20 kB of declarations; call `betterAuth()` yourself if you need plugin endpoints typed.)
 */
export type TerrenoBetterAuth = Auth<BetterAuthOptions>;
