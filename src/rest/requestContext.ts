/** Builds the core's RequestContext from an Express request (REST's only translation of the caller). */
import type { Request } from "express";
import type { OperationObserver } from "../core/observe.js";
import type { RequestContext, User } from "../core/types.js";

/**
 * The matched route as a template, e.g. `/todos/:id` (a router's `/` is its mount path), or
 * undefined when no route matched. Mount paths are taken as matched, so a mount path with
 * parameters would show their values.
 */
export function routeTemplate(req: Request): string | undefined {
  const path: unknown = req.route?.path;
  if (typeof path !== "string") return undefined;
  if (path === "/" && req.baseUrl) return req.baseUrl;
  return `${req.baseUrl ?? ""}${path}`;
}

export function restContext(req: Request): RequestContext {
  const route = routeTemplate(req);
  const observer: unknown = req.app?.locals?.terrenoObserver;
  return {
    user: (req as Request & { user?: User }).user,
    transport: "rest",
    headers: req.headers as Record<string, string | undefined>,
    raw: req,
    operation: route ? `${req.method} ${route}` : req.method,
    ...(observer ? { observer: observer as OperationObserver } : {}),
  };
}
