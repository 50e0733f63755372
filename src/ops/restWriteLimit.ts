/** The REST routers' write limit: the app's `RateLimits` rule, as Express middleware. */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Resource } from "../core/resource.js";
import type { RateLimits } from "./appRateLimits.js";
import { clientIp } from "./rateLimitKeys.js";

/**
 * REST: a router's POST/PATCH/DELETE spend the caller's write points in `limits`, the app's
 * `RateLimits` when they are on (TerrenoApp hands them to the routers it mounts; a router on a
 * plain Express app has none and is not limited).
 */
export function restWriteLimit(
  resource: Resource,
  limits: Pick<RateLimits, "consume"> | undefined,
): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    if (!limits || (req.method !== "POST" && req.method !== "PATCH" && req.method !== "DELETE"))
      return next();
    limits
      .consume({
        action: "write",
        resource,
        user: req.user,
        ip: clientIp(req),
      })
      .then(() => next(), next);
  };
}
