/** Builds the core's RequestContext from an Express request (REST's only translation of the caller). */
import type { Request } from "express";
import type { RequestContext, User } from "../core/types.js";

export function restContext(req: Request): RequestContext {
  return {
    user: (req as Request & { user?: User }).user,
    transport: "rest",
    headers: req.headers as Record<string, string | undefined>,
    raw: req,
  };
}
