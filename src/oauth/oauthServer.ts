/**
 * `oauthServer()`: a built-in OAuth 2.1 authorization server for the MCP endpoint, so MCP
 * clients (Claude Code, Cursor, VS Code, the Inspector) sign in through the browser with the
 * app's own accounts instead of a pasted token. The protocol is Better Auth's (`@better-auth/mcp`
 * and `jwt()`); this plugin mounts it, serves the metadata where clients look, renders the
 * sign-in and consent pages, and turns the tokens it issues into callers.
 */

import {
  oauthProviderAuthServerMetadata,
  oauthProviderOpenIdConfigMetadata,
} from "@better-auth/oauth-provider";
import { toNodeHandler } from "better-auth/node";
import type { Request, Response } from "express";
import type { JSONWebKeySet } from "jose";
import type { Connection } from "mongoose";
import { registerGrantRevoker } from "../auth/grantRevocation.js";
import { MCP_SCOPES } from "../core/scopes.js";
import type { AnyModel, RateLimitWindow } from "../core/types.js";
import { addressPolicy } from "../http/addressPolicy.js";
import { fetchSlots } from "../http/fencedFetch.js";
import { DEFAULT_MCP_PATH } from "../http/mcpPath.js";
import { rawBodyLimit } from "../http/rawBodyLimit.js";
import { createRateLimit, type RateLimits } from "../ops/rateLimit.js";
import type { TerrenoPlugin } from "../plugin/types.js";
import { oauthAccessTokenProvider } from "./accessTokens.js";
import {
  createOAuthInstance,
  type OAuthInstance,
  type OAuthInstanceSettings,
  oauthPlugins,
} from "./authInstance.js";
import { clientMetadataBudget } from "./clientMetadataBudget.js";
import type { ClientMetadataSettings } from "./clientMetadataDiscovery.js";
import { registrationFieldCaps } from "./clientMetadataLimits.js";
import { prepareConnectionMarks } from "./connectionMarks.js";
import { connectionRoutes } from "./connectionRoutes.js";
import { connectionsOpenApi } from "./connectionsOpenApi.js";
import { oauthOpenApi } from "./oauthOpenApi.js";
import { oauthPageRoutes } from "./pageRoutes.js";
import { revokeOAuthGrants } from "./userGrants.js";

export const DEFAULT_OAUTH_BASE_PATH = "/oauth";
export const DEFAULT_OAUTH_SCOPES: readonly string[] = [...MCP_SCOPES, "openid", "offline_access"];

export interface OAuthServerOptions {
  /**
   * Signs the provider's state and cookies and encrypts its signing keys; at least 32 random
   * characters.
   */
  secret: string;
  /**
   * Secrets used before `secret`, after a rotation: the signing keys stored under them are
   * re-encrypted with `secret` at start-up. Never used to sign. Without them a key no secret
   * opens is retired with a warning and a new one made (no 500). Default none.
   */
  previousSecrets?: string[];
  /**
   * The issuer: this server's public base URL, e.g. `https://api.example.com` (or
   * `http://127.0.0.1:4000` locally). Its RFC 8414 metadata is served at
   * `/.well-known/oauth-authorization-server`.
   */
  issuer: string;
  /** The MCP endpoint's URL, the audience of every token. Default `${issuer}/mcp`. */
  resource?: string;
  /** The app's user model (with `authUserPlugin`): people sign in with its email and password. */
  userModel: AnyModel;
  /** Where Mongo data lives. Default: the user model's connection (`userModel.db`). */
  connection?: Connection;
  /** Where the OAuth endpoints and the sign-in and consent pages live. Default `/oauth`. */
  basePath?: string;
  /** Scopes clients may ask for. Default `mcp:read mcp:write openid offline_access`. */
  scopes?: string[];
  /**
   * Open dynamic client registration (RFC 7591) for public clients: how Claude Code, Cursor,
   * VS Code and the Inspector register themselves. Default true.
   */
  allowDynamicClientRegistration?: boolean;
  /**
   * Client ID Metadata Documents (MCP 2025-11-25): a client whose `client_id` is an https URL
   * is described by the JSON document at that URL, fetched when first seen, so hosted clients
   * (Claude, ChatGPT, VS Code) sign in without registering, and the consent page can name the
   * host that vouches for them. Advertised as `client_id_metadata_document_supported`.
   * Default true; `false` turns it off. Its fetch refuses private and loopback addresses.
   */
  clientMetadataDocuments?: boolean | ClientMetadataDocumentOptions;
  /** Access-token lifetime in seconds. Default 3600. */
  accessTokenTtlSeconds?: number;
  /** The name shown on the sign-in page. Default "this app". */
  appName?: string;
  /**
   * Let a person without an account create one on the sign-in page, then continue the
   * authorization: with the same fields, rules, `onSignup` hook and per-IP limit as
   * `POST /auth/signup` (the app's `auth.jwt` options). Default: whether the app offers
   * `/auth/signup` (its `auth.jwt` is set).
   */
  allowSignup?: boolean;
}

/** How Client ID Metadata Documents are fetched and cached. */
export interface ClientMetadataDocumentOptions {
  /**
   * Addresses or CIDR ranges ("127.0.0.1", "10.2.0.0/16") that may serve documents although
   * they are loopback, private or otherwise special-use. Default none: only public addresses.
   */
  allowAddresses?: string[];
  /** PEM certificates trusted beside the system's roots for the fetch (tests, a private CA). */
  ca?: string[];
  /** Largest document accepted, in bytes. Default 5120 (the CIMD draft's 5 KB). */
  maxBytes?: number;
  /** Time allowed for the whole fetch, in milliseconds. Default 5000. */
  timeoutMs?: number;
  /** Seconds a document is reused when its response has no Cache-Control. Default 300. */
  defaultCacheSeconds?: number;
  /** Most seconds a document is reused, whatever its Cache-Control says. Default 86400. */
  maxCacheSeconds?: number;
  /**
   * Fewest seconds a document is reused, even when its response says `no-store` or
   * `no-cache`, so a client_id cannot make every request fetch again. Default 60.
   */
  minCacheSeconds?: number;
  /**
   * Seconds a refused document (no answer, an error status, not a valid document…) is
   * remembered and not fetched again. Default 60.
   */
  failureCacheSeconds?: number;
  /**
   * Documents fetched on behalf of one client address (its `clientIp`), per window, counted
   * only when a fetch happens, in the app's rate-limit store. Over it the request is refused
   * with 429 (the authorization endpoint shows the problem page). Default 10 per 60 s; `false`
   * for none.
   */
  fetchesPerIp?: RateLimitWindow | false;
  /**
   * Fetches in flight at once in this process; one more is refused at once rather than
   * holding another socket for the whole timeout. Default 8.
   */
  maxConcurrentFetches?: number;
}

export interface OAuthServerPlugin extends TerrenoPlugin {
  /** The Better Auth instance (after the database is connected), e.g. for `auth.api` calls. */
  auth(): OAuthInstance;
}

const trimSlash = (value: string) => value.replace(/\/+$/, "");

/**
 * The POST routes under basePath that spend the app's per-IP auth limit: the one bucket
 * `/auth/signup` and `/auth/login` spend too.
 */
const RATE_LIMITED_OAUTH_ROUTES = [
  "/login",
  "/signup",
  "/oauth2/register",
  "/oauth2/token",
] as const;

/**
 * The most bytes of a request body the OAuth library's routes read (registration, token,
 * revoke, introspect…): a registration with 20 redirect URIs of 2 KB fits.
 */
const OAUTH_BODY_LIMIT = 64 * 1024;

/** The endpoints a browser-based client (the Inspector) calls cross-origin, without cookies. */
const PUBLIC_ENDPOINTS = new Set(["/oauth2/register", "/oauth2/token", "/oauth2/revoke", "/jwks"]);

function openToBrowserClients(req: Request, res: Response, next: () => void): void {
  if (!PUBLIC_ENDPOINTS.has(req.path)) {
    next();
    return;
  }
  res.setHeader("Access-Control-Allow-Origin", "*");
  if (req.method !== "OPTIONS") {
    next();
    return;
  }
  res.setHeader("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
  res.setHeader("Access-Control-Allow-Headers", "Authorization, Content-Type, DPoP");
  res.status(204).end();
}

const positive = (name: string, value: number | undefined, fallback: number): number => {
  const chosen = value ?? fallback;
  if (!Number.isFinite(chosen) || chosen < 0) {
    throw new Error(`oauthServer: clientMetadataDocuments.${name} must be a number >= 0.`);
  }
  return chosen;
};

const chosenDocumentOptions = (option: OAuthServerOptions["clientMetadataDocuments"]) =>
  option === false ? undefined : option === true || option === undefined ? {} : option;

function clientMetadataSettings(
  option: OAuthServerOptions["clientMetadataDocuments"],
): ClientMetadataSettings | undefined {
  const chosen = chosenDocumentOptions(option);
  if (!chosen) return undefined;
  const concurrent = positive("maxConcurrentFetches", chosen.maxConcurrentFetches, 8);
  if (!Number.isInteger(concurrent) || concurrent < 1) {
    throw new Error(
      "oauthServer: clientMetadataDocuments.maxConcurrentFetches must be an integer >= 1.",
    );
  }
  const maxCacheSeconds = positive("maxCacheSeconds", chosen.maxCacheSeconds, 86_400);
  return {
    fetch: {
      addresses: addressPolicy(chosen.allowAddresses),
      ca: chosen.ca,
      maxBytes: positive("maxBytes", chosen.maxBytes, 5120),
      timeoutMs: positive("timeoutMs", chosen.timeoutMs, 5000),
      slots: fetchSlots(concurrent),
    },
    defaultCacheSeconds: positive("defaultCacheSeconds", chosen.defaultCacheSeconds, 300),
    maxCacheSeconds,
    minCacheSeconds: Math.min(
      positive("minCacheSeconds", chosen.minCacheSeconds, 60),
      maxCacheSeconds,
    ),
    failureCacheSeconds: positive("failureCacheSeconds", chosen.failureCacheSeconds, 60),
  };
}

const DEFAULT_FETCHES_PER_IP: RateLimitWindow = { points: 10, duration: 60 };

/** The per-address budget of document fetches, on the app's rate-limit store when it has one. */
function fetchBudget(
  option: OAuthServerOptions["clientMetadataDocuments"],
  rateLimits: RateLimits | undefined,
) {
  const window = chosenDocumentOptions(option)?.fetchesPerIp ?? DEFAULT_FETCHES_PER_IP;
  if (window === false) return undefined;
  const name = "oauth_cimd_fetch_ip";
  const limit = rateLimits
    ? rateLimits.limiter(name, window)
    : createRateLimit({ name, ...window });
  return clientMetadataBudget(limit);
}

function settingsFrom(options: OAuthServerOptions): OAuthInstanceSettings {
  if (typeof options.secret !== "string" || options.secret.length < 32) {
    throw new Error("oauthServer: secret must be at least 32 characters.");
  }
  const previousSecrets = options.previousSecrets ?? [];
  previousSecrets.forEach((previous, index) => {
    if (typeof previous !== "string" || previous.length < 32) {
      throw new Error(`oauthServer: previousSecrets[${index}] must be at least 32 characters.`);
    }
  });
  const issuer = trimSlash(new URL(options.issuer).href);
  const basePath = trimSlash(options.basePath ?? DEFAULT_OAUTH_BASE_PATH);
  const scopes = options.scopes ?? [...DEFAULT_OAUTH_SCOPES];
  if (!MCP_SCOPES.some((scope) => scopes.includes(scope))) {
    throw new Error(`oauthServer: scopes must include ${MCP_SCOPES.join(" or ")}.`);
  }
  return {
    secret: options.secret,
    previousSecrets: previousSecrets.filter((previous) => previous !== options.secret),
    issuer,
    basePath,
    resource: options.resource ?? `${issuer}${DEFAULT_MCP_PATH}`,
    scopes,
    loginPage: `${basePath}/login`,
    consentPage: `${basePath}/consent`,
    allowDynamicClientRegistration: options.allowDynamicClientRegistration ?? true,
    clientMetadata: clientMetadataSettings(options.clientMetadataDocuments),
    accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 3600,
    collectionPrefix: "oauth_",
  };
}

/**
 * The authorization server as a TerrenoPlugin: `app.register(oauthServer({secret, issuer,
 * userModel}))`. /mcp's Protected Resource Metadata then names it in `authorization_servers`,
 * and its access tokens are accepted on /mcp and REST with their scopes.
 */
export function oauthServer(options: OAuthServerOptions): OAuthServerPlugin {
  const settings = settingsFrom(options);
  if (!options.userModel.schema.path("email") || !options.userModel.schema.path("passwordHash")) {
    throw new Error("oauthServer: the userModel needs authUserPlugin (email, passwordHash).");
  }
  // Validated now (mcp() checks the resource); the instance itself needs a connected database.
  const plugins = oauthPlugins(settings, options.userModel.db);
  let instance: OAuthInstance | undefined;
  const auth = () => {
    instance ??= createOAuthInstance(settings, plugins, options.connection ?? options.userModel.db);
    return instance;
  };
  // A password change, reset or disabling the user ends their OAuth grants and sessions too.
  registerGrantRevoker(options.userModel.db, "oauth-server", (ids, connection) =>
    revokeOAuthGrants(auth(), connection, ids),
  );
  let nodeHandler: ReturnType<typeof toNodeHandler> | undefined;
  const handle = (req: Request, res: Response, next: (error?: unknown) => void) => {
    nodeHandler ??= toNodeHandler(auth());
    nodeHandler(req, res).catch(next);
  };
  const metadata = (
    handler: (auth: OAuthInstance) => (request: globalThis.Request) => Promise<globalThis.Response>,
  ) => {
    let cached: ((request: globalThis.Request) => Promise<globalThis.Response>) | undefined;
    return (req: Request, res: Response, next: (error?: unknown) => void) => {
      cached ??= handler(auth());
      const request = new globalThis.Request(new URL(req.originalUrl, settings.issuer));
      cached(request)
        .then(async (response) => {
          res.status(response.status);
          response.headers.forEach((value, name) => {
            res.setHeader(name, value);
          });
          res.send(await response.text());
        })
        .catch(next);
    };
  };
  // Browser-based clients (the Inspector) read the metadata cross-origin.
  const corsHeaders = { "Access-Control-Allow-Origin": "*" };
  // Connected apps live beside the app's other auth routes (its `auth.path`, set at register).
  let connectionsPath = "/auth/connections";
  const marks = options.userModel.db;
  prepareConnectionMarks(marks);

  return {
    name: "oauth-server",
    auth,
    authorizationServer: { issuer: settings.issuer, resource: settings.resource },
    openApi: (helpers) => {
      const server = oauthOpenApi({
        issuerPath: new URL(settings.issuer).pathname.replace(/\/$/, ""),
        basePath: settings.basePath,
        openid: settings.scopes.includes("openid"),
        registration: settings.allowDynamicClientRegistration,
      });
      const connections = connectionsOpenApi(connectionsPath, helpers);
      return {
        tags: [...(server.tags ?? []), ...(connections.tags ?? [])],
        schemas: { ...server.schemas, ...connections.schemas },
        securitySchemes: { ...server.securitySchemes, ...connections.securitySchemes },
        paths: { ...server.paths, ...connections.paths },
      };
    },
    authProvider: oauthAccessTokenProvider({
      issuer: settings.issuer,
      resource: settings.resource,
      userModel: options.userModel,
      loadJwks: async () => (await auth().api.getJwks()) as unknown as JSONWebKeySet,
    }),
    beforeBodyParser(app, ctx) {
      // RFC 8414: the issuer is the origin, so the metadata lives at the root well-known URL.
      // The library's own handlers build the document.
      const issuerPath = new URL(settings.issuer).pathname.replace(/\/$/, "");
      app.get(
        `/.well-known/oauth-authorization-server${issuerPath}`,
        metadata((instance) => oauthProviderAuthServerMetadata(instance, { headers: corsHeaders })),
      );
      if (settings.scopes.includes("openid")) {
        app.get(
          `${issuerPath}/.well-known/openid-configuration`,
          metadata((instance) =>
            oauthProviderOpenIdConfigMetadata(instance, { headers: corsHeaders }),
          ),
        );
      }
      // CORS first, so a browser-based client can read a 429 too.
      app.use(settings.basePath, openToBrowserClients);
      // Sign-in, sign-up, the open registration and the token endpoint spend the app's per-IP auth
      // points: its store is shared by every instance (Better Auth's own limiter is off).
      const perIpLimit = ctx.rateLimits?.authRoutes(settings.basePath, RATE_LIMITED_OAUTH_ROUTES);
      if (perIpLimit) app.use(perIpLimit);
      // Client ID Metadata Document fetches spend the caller's address's budget (per window).
      const budget = settings.clientMetadata
        ? fetchBudget(options.clientMetadataDocuments, ctx.rateLimits)
        : undefined;
      if (budget) app.use(settings.basePath, budget);
      // The pages first: the library's handler below owns everything else under basePath.
      app.use(
        settings.basePath,
        oauthPageRoutes({
          auth,
          userModel: options.userModel,
          issuer: settings.issuer,
          appName: options.appName ?? "this app",
          loginGuard: ctx.rateLimits?.loginGuard,
          signup:
            (options.allowSignup ?? ctx.options.auth?.jwt !== undefined)
              ? (ctx.options.auth?.jwt ?? {})
              : undefined,
        }),
      );
      // The library reads the request stream itself, past the app's JSON limit: a limit here.
      app.post(
        `${settings.basePath}/oauth2/register`,
        rawBodyLimit(OAUTH_BODY_LIMIT),
        registrationFieldCaps(),
      );
      app.all(`${settings.basePath}/*splat`, rawBodyLimit(OAUTH_BODY_LIMIT), handle);
    },
    register(app, ctx) {
      connectionsPath = `${(ctx.options.auth?.path ?? "/auth").replace(/\/+$/, "")}/connections`;
      app.use(connectionsPath, connectionRoutes(auth, marks, ctx.logger));
    },
  };
}
