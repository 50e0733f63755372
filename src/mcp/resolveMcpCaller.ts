/**
 * /mcp's caller: resolved with the app's one resolver and handed to the server factory as
 * `req.auth` (the SDK's Node adapter forwards it as `authInfo`). A caller is required unless
 * some tool serves anonymous callers: 401 + `WWW-Authenticate: Bearer` pointing at this
 * resource's metadata (RFC 9728 §5.1). During a database outage the call goes on with the
 * failure, so tool calls answer the documented isError `database_unavailable` result.
 */
import type { NextFunction, Request, Response } from "express";
import { TerrenoError } from "../core/errors.js";
import { type Logger, reportFailure } from "../core/logger.js";
import { normalizeError } from "../core/normalizeError.js";
import type { User } from "../core/types.js";
import { clientIp } from "../ops/rateLimit.js";
import type { McpCaller } from "./caller.js";
import { sendJsonRpcError } from "./jsonRpcError.js";
import { bearerChallenge, mcpResourceUrl, resourceMetadataUrl } from "./resourceMetadata.js";

export interface ResolveMcpCallerOptions {
  resolveCaller(headers: Request["headers"]): Promise<User | undefined>;
  /** Whether any tool serves callers with no user. */
  anonymousAllowed: boolean;
  /** The endpoint's path and configured resource URL, for the 401's metadata link. */
  path: string;
  resourceUrl?: string;
  scopesSupported: readonly string[];
  logger: Logger;
}

function headerRecord(req: Request): Record<string, string | undefined> {
  return req.headers as Record<string, string | undefined>;
}

function setAuth(req: Request, caller: McpCaller, clientId: string): void {
  (req as Request & { auth?: unknown }).auth = {
    token: "",
    clientId,
    scopes: [...(caller.user?.scopes ?? [])],
    extra: { caller },
  };
}

export function resolveMcpCaller(options: ResolveMcpCallerOptions) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const user = await options.resolveCaller(req.headers);
      if (!user && !options.anonymousAllowed) {
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
      setAuth(req, caller, user?.id ?? "anonymous");
      next();
    } catch (error) {
      const failure = normalizeError(error);
      if (failure.code === "database_unavailable") {
        setAuth(req, { headers: headerRecord(req), failure }, "unresolved");
        return next();
      }
      if (!(error instanceof TerrenoError && error.code === "unauthenticated")) {
        // A known refusal other than 401 (e.g. 503 identity_provider_unavailable from an
        // external IdP's JWKS): a JSON-RPC error like every other transport failure here.
        if (failure.status >= 500) {
          reportFailure(options.logger, failure, { surface: "mcp", operation: "resolveCaller" });
        }
        return sendJsonRpcError(res, failure);
      }
      const sentToken = Boolean(req.headers.authorization);
      res.setHeader(
        "WWW-Authenticate",
        bearerChallenge({
          resourceMetadata: resourceMetadataUrl(
            mcpResourceUrl(req, options.path, options.resourceUrl),
          ),
          scopes: options.scopesSupported,
          ...(sentToken ? { error: "invalid_token" as const, description: error.message } : {}),
        }),
      );
      sendJsonRpcError(res, error);
    }
  };
}
