/** The REST routers' write limit: the app's `RateLimits` rule, as Express middleware. */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Resource } from "../core/resource.js";
import type { User } from "../core/types.js";
import type { RateLimits } from "./appRateLimits.js";
import { clientIp } from "./rateLimitKeys.js";

/**
 * REST: a router's POST/PATCH/DELETE spend the caller's write points (the app's `RateLimits`,
 * which TerrenoApp puts in `app.locals`; a router on a plain Express app is not limited).
 */
export function restWriteLimit(resource: Resource): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const limits = req.app?.locals?.terrenoRateLimits as RateLimits | undefined;
    if (
      !limits?.enabled ||
      (req.method !== "POST" && req.method !== "PATCH" && req.method !== "DELETE")
    )
      return next();
    limits
      .consume({
        action: "write",
        resource,
        user: (req as Request & { user?: User }).user,
        ip: clientIp(req),
      })
      .then(() => next(), next);
  };
}
