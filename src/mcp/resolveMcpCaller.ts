/**
 * /mcp's caller: resolved with the app's one resolver and bound to the request as its
 * `McpRequestState` (requestState.ts), which the endpoint hands on. A caller is required unless
 * some tool serves anonymous callers: 401 + `WWW-Authenticate: Bearer` pointing at this
 * resource's metadata (RFC 9728 §5.1). During a database outage the call goes on with the
 * failure, so tool calls answer the documented isError `database_unavailable` result.
 */
import type { NextFunction, Request, Response } from "express";
import { TerrenoError } from "../core/errors.js";
import { type Logger, reportFailure } from "../core/logger.js";
import { normalizeError } from "../core/normalizeError.js";
import type { User } from "../core/types.js";
import { workspaceAccess } from "../core/workspace.js";
import type { WorkspaceDirectory } from "../core/workspaceTypes.js";
import { clientIp } from "../ops/rateLimit.js";
import type { McpCaller } from "./caller.js";
import { sendJsonRpcError } from "./jsonRpcError.js";
import { bindMcpRequestState, McpRequestState } from "./requestState.js";
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
  /** The app's workspaces, when it has them (src/core/workspace.ts). */
  workspaces?: WorkspaceDirectory;
}

function headerRecord(req: Request): Record<string, string | undefined> {
  return req.headers as Record<string, string | undefined>;
}

/** The request's state; a refusal it meets is counted under its code on `res` (telemetry). */
function bindCaller(req: Request, res: Response, caller: McpCaller): void {
  bindMcpRequestState(req, new McpRequestState(caller, res));
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
      const headers = headerRecord(req);
      const workspace = options.workspaces
        ? workspaceAccess(options.workspaces, { user, headers })
        : undefined;
      bindCaller(req, res, {
        user,
        headers,
        ip: clientIp(req),
        ...(workspace ? { workspace } : {}),
      });
      next();
    } catch (error) {
      const failure = normalizeError(error);
      if (failure.code === "database_unavailable") {
        bindCaller(req, res, { headers: headerRecord(req), failure });
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
