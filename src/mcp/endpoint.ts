/**
 * `POST /mcp`: Origin check (DNS-rebinding protection), caller resolution with the app's
 * one resolver (401 + `WWW-Authenticate: Bearer` when a caller is required), then the
 * dual-era SDK handler. GET and DELETE answer 405: the endpoint is stateless.
 */
import { toNodeHandler } from "@modelcontextprotocol/node";
import { localhostAllowedOrigins, validateOriginHeader } from "@modelcontextprotocol/server";
import express, { type NextFunction, type Request, type Response } from "express";
import type { AppContext, TerrenoPlugin } from "../app/types.js";
import { TerrenoError, toErrorBody } from "../core/errors.js";
import { findTooDeep, MAX_DEPTH, TOO_DEEP_REASON } from "../core/inputSafety.js";
import { reportFailure } from "../core/logger.js";
import { normalizeError } from "../core/normalizeError.js";
import { MCP_SCOPES } from "../core/scopes.js";
import { clientIp } from "../ops/rateLimit.js";
import { toTerrenoError } from "../rest/sendError.js";
import type { ToolDefinition } from "../tools/toolDefinitions.js";
import { createDualEraHandler } from "./httpHandler.js";
import { createServerFactory, type McpCaller } from "./mcpServerFactory.js";
import type { McpEndpointOptions } from "./options.js";
import {
  bearerChallenge,
  checkResourceUrl,
  mcpResourceUrl,
  PROTECTED_RESOURCE_WELL_KNOWN,
  resourceMetadataHandler,
  resourceMetadataUrl,
} from "./resourceMetadata.js";

export const DEFAULT_MCP_PATH = "/mcp";

/** A transport-level failure, from the one error table: its HTTP status and JSON-RPC code. */
function jsonRpcError(res: Response, error: TerrenoError, id: string | number | null = null): void {
  const body = toErrorBody(error);
  for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
  res.locals.terrenoErrorCode = error.code;
  res.status(error.status).json({
    jsonrpc: "2.0",
    error: {
      code: error.spec.jsonRpc,
      message: `${body.code}: ${body.detail}`,
      data: { error: body },
    },
    id,
  });
}

/** Accepts full origins ("https://app.example.com") or bare hostnames. */
function allowedHostnames(origins: readonly string[] | undefined): string[] {
  const configured = (origins ?? []).map((origin) => {
    try {
      return origin.includes("://") ? new URL(origin).hostname : origin;
    } catch {
      return origin;
    }
  });
  return [...localhostAllowedOrigins(), ...configured];
}

/** The SDK's schema parse drops `__proto__` keys of tool arguments without a word. */
function hasProtoKey(value: unknown, depth = 0): boolean {
  if (typeof value !== "object" || value === null || depth > 64) return false;
  if (Array.isArray(value)) return value.some((item) => hasProtoKey(item, depth + 1));
  return Object.entries(value).some(
    ([key, child]) => key === "__proto__" || hasProtoKey(child, depth + 1),
  );
}

function headerRecord(req: Request): Record<string, string | undefined> {
  return req.headers as Record<string, string | undefined>;
}

/** Custom tools (`app.tool(...)`) mount the endpoint even when no model opts in. */
function hasCustomTools(tools: readonly ToolDefinition[]): boolean {
  return tools.some((tool) => tool.kind === "handler" && tool.custom === true);
}

export function mcpPlugin(
  ctx: AppContext,
  tools: readonly ToolDefinition[],
  options: McpEndpointOptions = {},
): TerrenoPlugin | undefined {
  const resources = ctx.resources.filter((resource) => resource.options.mcp);
  if (options.enabled === false || (resources.length === 0 && !hasCustomTools(tools)))
    return undefined;
  const path = options.path ?? DEFAULT_MCP_PATH;
  // `tools` (definitions and validators) were built once; requests only construct a light Server.
  const anonymousAllowed =
    resources.some((resource) => resource.views.tools.anonymous) ||
    tools.some((tool) => tool.kind === "handler" && tool.access.anonymous);
  const { logger } = ctx;
  const factory = createServerFactory(
    tools,
    { name: options.name ?? "terreno-mcp", version: options.version ?? "0.1.0" },
    logger,
    ctx.observer,
    ctx.rateLimits?.enabled ? ctx.rateLimits : undefined,
  );
  const report = (operation: string) => (error: unknown) =>
    reportFailure(logger, normalizeError(error), { surface: "mcp", operation });
  // The SDK reports here what it has already answered itself: mostly a client's malformed or
  // unsupported message (a 4xx), so a warning, not a server fault.
  const sdkRejected = (error: unknown) =>
    logger.warn({ err: error, surface: "mcp" }, "terreno-mcp: the MCP SDK rejected a request");
  const handler = createDualEraHandler(factory, sdkRejected);
  const node = toNodeHandler(handler, { onerror: sdkRejected });
  const hostnames = allowedHostnames(options.allowedOrigins);
  const resourceUrl = options.resourceUrl ? checkResourceUrl(options.resourceUrl) : undefined;
  const scopesSupported = options.oauth?.scopesSupported ?? MCP_SCOPES;

  const checkOrigin = (req: Request, res: Response, next: NextFunction) => {
    const result = validateOriginHeader(req.headers.origin, hostnames);
    if (result.ok) return next();
    jsonRpcError(
      res,
      new TerrenoError("forbidden", "This Origin is not allowed to call the MCP endpoint."),
    );
  };

  const resolveCaller = async (req: Request, res: Response, next: NextFunction) => {
    try {
      const user = await ctx.resolveCaller(req.headers);
      if (!user && !anonymousAllowed) {
        throw new TerrenoError(
          "unauthenticated",
          "Authentication is required: send Authorization: Bearer <token>.",
        );
      }
      const caller: McpCaller = {
        user,
        headers: headerRecord(req),
        ip: clientIp(req),
        // A call refused with its own HTTP status (429) is counted under its error code.
        onHttpRefusal: (error) => {
          res.locals.terrenoErrorCode = error.code;
        },
      };
      // The SDK's Node adapter forwards `req.auth` to the server factory as `authInfo`.
      (req as Request & { auth?: unknown }).auth = {
        token: "",
        clientId: user?.id ?? "anonymous",
        scopes: [...(user?.scopes ?? [])],
        extra: { caller },
      };
      next();
    } catch (error) {
      // The user lookup needs the database: during an outage, tool calls still answer with
      // the documented isError `database_unavailable` result (the factory reports it).
      const failure = normalizeError(error);
      if (failure.code === "database_unavailable") {
        const caller: McpCaller = { headers: headerRecord(req), failure };
        (req as Request & { auth?: unknown }).auth = {
          token: "",
          clientId: "unresolved",
          scopes: [],
          extra: { caller },
        };
        return next();
      }
      const message =
        error instanceof TerrenoError && error.code === "unauthenticated"
          ? error.message
          : undefined;
      if (!message) {
        // A known refusal other than 401 (e.g. 503 identity_provider_unavailable from an
        // external IdP's JWKS): a JSON-RPC error like every other transport failure here.
        if (failure.status >= 500) report("resolveCaller")(error);
        return jsonRpcError(res, failure);
      }
      // RFC 9728 §5.1: every 401 points the client at this resource's metadata, which names
      // the authorization servers it can get a token from.
      const sentToken = Boolean(req.headers.authorization);
      res.setHeader(
        "WWW-Authenticate",
        bearerChallenge({
          resourceMetadata: resourceMetadataUrl(mcpResourceUrl(req, path, resourceUrl)),
          scopes: scopesSupported,
          ...(sentToken ? { error: "invalid_token" as const, description: message } : {}),
        }),
      );
      jsonRpcError(res, error as TerrenoError);
    }
  };

  // 2026-era requests skip the SDK's Accept check and 2025-era batches are still accepted
  // there; both are refused here so every era gets the same clear 4xx.
  const checkEnvelope = (req: Request, res: Response, next: NextFunction) => {
    const accept = req.headers.accept ?? "";
    if (!/application\/json|application\/\*|\*\/\*/.test(accept)) {
      return jsonRpcError(
        res,
        new TerrenoError("not_acceptable", "Send Accept: application/json, text/event-stream."),
      );
    }
    if (Array.isArray(req.body)) {
      return jsonRpcError(
        res,
        new TerrenoError(
          "invalid_request",
          "JSON-RPC batches are not supported; send one request per POST.",
        ),
      );
    }
    // Refused like REST refuses it, rather than silently dropped before the core sees it.
    if (hasProtoKey(req.body)) {
      return jsonRpcError(
        res,
        new TerrenoError("validation_failed", 'The key "__proto__" is not allowed.'),
      );
    }
    next();
  };

  // Right after parsing, before any recursive walk of the body (hasProtoKey, the SDK's schema
  // parse, its adapter's JSON.stringify): too deep is a 400 -32600, never a stack overflow.
  const limitDepth = (req: Request, res: Response, next: NextFunction) => {
    const path = findTooDeep(req.body);
    if (path === undefined) return next();
    const id = (req.body as { id?: unknown }).id;
    jsonRpcError(
      res,
      new TerrenoError(
        "invalid_request",
        `The request is nested deeper than ${MAX_DEPTH} levels.`,
        {
          [path]: TOO_DEEP_REASON,
        },
      ),
      typeof id === "string" || typeof id === "number" ? id : null,
    );
  };

  // Every failure of the body parser answers in JSON-RPC's shape, from the one error table.
  const parseErrors = (error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const type = (error as { type?: string }).type;
    if (type === "entity.parse.failed")
      return jsonRpcError(res, new TerrenoError("parse_error", "The body is not valid JSON."));
    if (type === "entity.too.large")
      return jsonRpcError(res, new TerrenoError("payload_too_large", "The request is too large."));
    const failure = toTerrenoError(error);
    if (failure.status >= 500) report("parse")(error);
    jsonRpcError(res, failure);
  };

  return {
    name: "mcp",
    // Mounted ahead of the app's REST middleware so MCP owns its parsing, auth and error shapes.
    beforeBodyParser(app) {
      const router = express.Router();
      router.post(
        "/",
        checkOrigin,
        // Not strict: a `null` or scalar body is valid JSON, so the SDK answers it with -32600.
        express.json({ limit: ctx.options.jsonLimit ?? "100kb", strict: false }),
        parseErrors,
        limitDepth,
        resolveCaller,
        checkEnvelope,
        (req: Request, res: Response) => {
          void node(req, res, req.body);
        },
      );
      router.all("/", (_req: Request, res: Response) => {
        res.setHeader("Allow", "POST");
        jsonRpcError(
          res,
          new TerrenoError("method_not_allowed", "This endpoint is stateless; use POST."),
        );
      });
      app.use(path, router);
      // Protected Resource Metadata (RFC 9728): the path form for this endpoint (and for the
      // configured resource URL's path, when a proxy serves it elsewhere) and the root form.
      const metadata = resourceMetadataHandler(path, { resourceUrl, oauth: options.oauth });
      const metadataPaths = new Set([
        `${PROTECTED_RESOURCE_WELL_KNOWN}${path}`,
        PROTECTED_RESOURCE_WELL_KNOWN,
      ]);
      if (resourceUrl) metadataPaths.add(new URL(resourceMetadataUrl(resourceUrl)).pathname);
      for (const metadataPath of metadataPaths) {
        app.get(metadataPath, metadata);
        app.options(metadataPath, metadata);
      }
    },
  };
}
