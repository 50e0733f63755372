/** The matched Express route as a template, for logs, telemetry and REST's RequestContext. */
import type { Request } from "express";

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
