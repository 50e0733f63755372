/** Builds the core's RequestContext from an Express request (REST's only translation of the caller). */
import type { Request } from "express";
import { callContext } from "../core/services.js";
import type { AppServices, RequestContext } from "../core/types.js";
import { setRequestWorkspace } from "../http/requestWorkspace.js";
import { routeTemplate } from "../http/routeTemplate.js";

/** `services`: the app's, handed to the router when the app mounted it. */
export function restContext(req: Request, services: AppServices): RequestContext {
  const route = routeTemplate(req);
  const ctx = callContext(services, {
    user: req.user,
    transport: "rest",
    headers: req.headers as Record<string, string | undefined>,
    raw: req,
    operation: route ? `${req.method} ${route}` : req.method,
  });
  // The request's span names the workspace the call resolved, if it resolved one.
  const { workspace } = ctx;
  if (workspace) setRequestWorkspace(req, () => workspace.settled()?.id);
  return ctx;
}
