/** /mcp's Origin check (DNS-rebinding protection): localhost and the configured origins pass. */
import { localhostAllowedOrigins, validateOriginHeader } from "@modelcontextprotocol/server";
import type { NextFunction, Request, Response } from "express";
import { TerrenoError } from "../core/errors.js";
import { sendJsonRpcError } from "./jsonRpcError.js";

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

export function checkOrigin(allowedOrigins: readonly string[] | undefined) {
  const hostnames = allowedHostnames(allowedOrigins);
  return (req: Request, res: Response, next: NextFunction) => {
    if (validateOriginHeader(req.headers.origin, hostnames).ok) return next();
    sendJsonRpcError(
      res,
      new TerrenoError("forbidden", "This Origin is not allowed to call the MCP endpoint."),
    );
  };
}
