/**
 * The Better Auth instance behind the built-in authorization server: `mcp()` (Better Auth's
 * OAuth 2.1 provider configured for MCP: authorization and token endpoints, PKCE, dynamic client
 * registration, consent records, RFC 8414 metadata) with `jwt()` signing the access tokens, and
 * the session bridge that signs the app's own users in. Everything OAuth is the library's.
 */
import { mcp } from "@better-auth/mcp";
import { type Auth, type BetterAuthOptions, betterAuth } from "better-auth";
import { mongodbAdapter } from "better-auth/adapters/mongodb";
import { jwt } from "better-auth/plugins/jwt";
import type { Connection } from "mongoose";
import { authorizeErrors } from "./authorizeErrors.js";
import { type ClientMetadataSettings, clientMetadataDocuments } from "./clientMetadataDiscovery.js";
import { ISSUED_AT_MS_CLAIM } from "./connectionMarks.js";
import { defaultResource } from "./defaultResource.js";
import { grantMarks } from "./grantMarks.js";
import { registrationDefaults } from "./registrationDefaults.js";
import { APP_USER_ID_CLAIM, APP_USER_ID_FIELD, sessionBridge } from "./sessionBridge.js";
import { signingKeyRotation } from "./signingKeyRotation.js";

export interface OAuthInstanceSettings {
  secret: string;
  /** Secrets used before `secret`: they decrypt the stored signing keys, never sign. */
  previousSecrets: string[];
  /** The issuer: the server's origin, e.g. `http://127.0.0.1:4000`. */
  issuer: string;
  /** Where Better Auth's endpoints live, e.g. `/oauth`. */
  basePath: string;
  /** The MCP URL tokens are issued for (their `aud`). */
  resource: string;
  scopes: string[];
  loginPage: string;
  consentPage: string;
  allowDynamicClientRegistration: boolean;
  /** Client ID Metadata Documents: how they are fetched and cached, or undefined when off. */
  clientMetadata?: ClientMetadataSettings;
  accessTokenTtlSeconds: number;
  /** Prefix of the instance's own collections, apart from any Better Auth the app runs itself. */
  collectionPrefix: string;
}

/**
 * The instance's plugins, named by reference so the published types point at Better Auth's
 * own instead of spelling out (with their `any`s) its inferred endpoint types.
 */
export type OAuthPlugins = Array<
  | ReturnType<typeof jwt>
  | ReturnType<typeof mcp>
  | ReturnType<typeof registrationDefaults>
  | ReturnType<typeof defaultResource>
  | ReturnType<typeof sessionBridge>
  | ReturnType<typeof authorizeErrors>
  | ReturnType<typeof signingKeyRotation>
  | ReturnType<typeof clientMetadataDocuments>
  | ReturnType<typeof grantMarks>
>;

/** The Better Auth instance behind `oauthServer()`, e.g. for `auth.api` calls. */
export type OAuthInstance = Auth<OAuthInstanceOptions>;

/** The options the instance is made with (their type decides the instance's API). */
type OAuthInstanceOptions = ReturnType<typeof instanceOptions>;

/**
 * `mcp()` validates its options when called: done at configuration time, not first request.
 * `marks` is where revocation marks live (connectionMarks.ts), which the refresh grant checks.
 */
export function oauthPlugins(settings: OAuthInstanceSettings, marks: Connection): OAuthPlugins {
  return [
    jwt({ jwt: { issuer: settings.issuer } }),
    mcp({
      resource: settings.resource,
      loginPage: settings.loginPage,
      consentPage: settings.consentPage,
      scopes: settings.scopes,
      accessTokenExpiresIn: settings.accessTokenTtlSeconds,
      allowDynamicClientRegistration: settings.allowDynamicClientRegistration,
      // MCP clients (Claude Code, Cursor, VS Code, the Inspector) register themselves, as public
      // clients without a secret; PKCE S256 is what protects their codes.
      allowUnauthenticatedClientRegistration: settings.allowDynamicClientRegistration,
      // The app user the token acts for: stable across email changes, unlike the email.
      customAccessTokenClaims: ({ user }) => {
        const appUserId = user?.[APP_USER_ID_FIELD];
        // The issue time in ms: a revocation refuses the tokens issued before it (connectionMarks.ts).
        const issued = { [ISSUED_AT_MS_CLAIM]: Date.now() };
        return typeof appUserId === "string"
          ? { [APP_USER_ID_CLAIM]: appUserId, ...issued }
          : issued;
      },
    }),
    registrationDefaults(),
    defaultResource(settings.resource),
    sessionBridge(),
    authorizeErrors(`${settings.issuer}${settings.basePath}/problem`),
    signingKeyRotation(settings.secret, settings.previousSecrets),
    grantMarks(marks),
    // After mcp(): it extends the provider mcp() made.
    ...(settings.clientMetadata ? [clientMetadataDocuments(settings.clientMetadata)] : []),
  ];
}

function instanceOptions(
  settings: OAuthInstanceSettings,
  plugins: OAuthPlugins,
  database: ReturnType<typeof mongodbAdapter>,
) {
  const prefix = settings.collectionPrefix;
  return {
    baseURL: settings.issuer,
    basePath: settings.basePath,
    secret: settings.secret,
    database,
    // People sign in with the app's own accounts (the sign-in page), never Better Auth's.
    emailAndPassword: { enabled: false },
    user: { modelName: `${prefix}users` },
    session: { modelName: `${prefix}sessions` },
    account: { modelName: `${prefix}accounts` },
    verification: { modelName: `${prefix}verifications` },
    // Its session cookie must not be mistaken for (or overwrite) an app's own Better Auth one.
    advanced: { cookiePrefix: "terreno-oauth" },
    telemetry: { enabled: false },
    // Its limiter counts in process memory (production only, keyed on a spoofable header); the
    // plugin puts the app's own per-IP limit, on the app's shared store, in front instead.
    rateLimit: { enabled: false },
    // Refusals it cannot send back to a client (an unregistered redirect URI) land on our own
    // page. Without this, production mode sends the person to the site root with a query.
    onAPIError: { errorURL: `${settings.issuer}${settings.basePath}/problem` },
    plugins,
  } satisfies BetterAuthOptions;
}

export function createOAuthInstance(
  settings: OAuthInstanceSettings,
  plugins: OAuthPlugins,
  connection: Connection,
): OAuthInstance {
  const db = connection.db;
  if (!db) throw new Error("oauthServer: Mongoose is not connected (await connectDatabase(uri)).");
  // Standalone servers and FerretDB have no transactions.
  const database = mongodbAdapter(db, { client: connection.getClient(), transaction: false });
  return betterAuth(instanceOptions(settings, plugins, database));
}
