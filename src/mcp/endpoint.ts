/**
 * `POST /mcp`: Origin check (DNS-rebinding protection), caller resolution with the app's
 * one resolver (401 + `WWW-Authenticate: Bearer` when a caller is required), then the
 * dual-era SDK handler. GET and DELETE answer 405: the endpoint is stateless.
 */
import { toNodeHandler } from "@modelcontextprotocol/node";
import { localhostAllowedOrigins, validateOriginHeader } from "@modelcontextprotocol/server";
import express, { type NextFunction, type Request, type Response } from "express";
import type { AppContext, McpEndpointOptions, TerrenoPlugin } from "../app/types.js";
import { TerrenoError } from "../core/errors.js";
import { normalizeError } from "../core/normalizeError.js";
import { createDualEraHandler } from "./httpHandler.js";
import { createServerFactory, type McpCaller } from "./mcpServerFactory.js";
import type { ToolDefinition } from "./toolDefinitions.js";

export const DEFAULT_MCP_PATH = "/mcp";

function jsonRpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: "2.0", error: { code, message }, id: null });
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

export function mcpPlugin(
  ctx: AppContext,
  tools: readonly ToolDefinition[],
  options: McpEndpointOptions = {},
): TerrenoPlugin | undefined {
  const resources = ctx.resources.filter((resource) => resource.options.mcp);
  if (options.enabled === false || resources.length === 0) return undefined;
  const path = options.path ?? DEFAULT_MCP_PATH;
  // `tools` (definitions and validators) were built once; requests only construct a light Server.
  const anonymousAllowed = resources.some((resource) => resource.options.allowAnonymous);
  const log = (message: string, error: unknown) => console.error(message, error);
  const factory = createServerFactory(
    tools,
    { name: options.name ?? "terreno-mcp", version: options.version ?? "0.1.0" },
    log,
  );
  const handler = createDualEraHandler(factory, (error) =>
    log("terreno-mcp: MCP handler error", error),
  );
  const node = toNodeHandler(handler, {
    onerror: (error) => log("terreno-mcp: MCP adapter error", error),
  });
  const hostnames = allowedHostnames(options.allowedOrigins);

  const checkOrigin = (req: Request, res: Response, next: NextFunction) => {
    const result = validateOriginHeader(req.headers.origin, hostnames);
    if (result.ok) return next();
    jsonRpcError(
      res,
      403,
      -32000,
      "Forbidden: this Origin is not allowed to call the MCP endpoint.",
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
      const caller: McpCaller = { user, headers: headerRecord(req) };
      // The SDK's Node adapter forwards `req.auth` to the server factory as `authInfo`.
      (req as Request & { auth?: unknown }).auth = {
        token: "",
        clientId: user?.id ?? "anonymous",
        scopes: [],
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
      if (!message) return next(error);
      res.setHeader(
        "WWW-Authenticate",
        `Bearer error="invalid_token", error_description="${message.replace(/"/g, "'")}"`,
      );
      jsonRpcError(res, 401, -32001, `Unauthorized: ${message}`);
    }
  };

  // 2026-era requests skip the SDK's Accept check and 2025-era batches are still accepted
  // there; both are refused here so every era gets the same clear 4xx.
  const checkEnvelope = (req: Request, res: Response, next: NextFunction) => {
    const accept = req.headers.accept ?? "";
    if (!/application\/json|application\/\*|\*\/\*/.test(accept)) {
      return jsonRpcError(
        res,
        406,
        -32000,
        "Not Acceptable: send Accept: application/json, text/event-stream.",
      );
    }
    if (Array.isArray(req.body)) {
      return jsonRpcError(
        res,
        400,
        -32600,
        "Invalid Request: JSON-RPC batches are not supported; send one request per POST.",
      );
    }
    // Refused like REST refuses it, rather than silently dropped before the core sees it.
    if (hasProtoKey(req.body)) {
      return jsonRpcError(res, 400, -32602, 'Invalid params: the key "__proto__" is not allowed.');
    }
    next();
  };

  const parseErrors = (error: unknown, _req: Request, res: Response, next: NextFunction) => {
    const type = (error as { type?: string }).type;
    if (type === "entity.parse.failed")
      return jsonRpcError(res, 400, -32700, "Parse error: the body is not valid JSON.");
    if (type === "entity.too.large") return jsonRpcError(res, 413, -32600, "Request too large.");
    next(error);
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
        resolveCaller,
        checkEnvelope,
        (req: Request, res: Response) => {
          void node(req, res, req.body);
        },
      );
      router.all("/", (_req: Request, res: Response) => {
        res.setHeader("Allow", "POST");
        jsonRpcError(res, 405, -32000, "Method not allowed: this endpoint is stateless; use POST.");
      });
      app.use(path, router);
    },
  };
}
