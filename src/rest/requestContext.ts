/** Builds the core's RequestContext from an Express request (REST's only translation of the caller). */
import type { Request } from "express";
import type { OperationObserver } from "../core/observe.js";
import type { HiddenFieldsLookup, RequestContext } from "../core/types.js";
import { routeTemplate } from "../http/routeTemplate.js";

/**
 * `observer`: the app's audit observer, and `hiddenOf` its routers' hidden fields, handed to
 * the router when the app mounted it.
 */
export function restContext(
  req: Request,
  observer?: OperationObserver,
  hiddenOf?: HiddenFieldsLookup,
): RequestContext {
  const route = routeTemplate(req);
  return {
    user: req.user,
    transport: "rest",
    headers: req.headers as Record<string, string | undefined>,
    raw: req,
    operation: route ? `${req.method} ${route}` : req.method,
    ...(observer ? { observer } : {}),
    ...(hiddenOf ? { hiddenOf } : {}),
  };
}
