/** The per-IP limit of the auth routes: one `auth_ip` bucket every caller spends from. */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import type { Logger } from "../core/logger.js";
import { spend } from "./rateLimitHandle.js";
import { clientIp } from "./rateLimitKeys.js";

/** The auth routes the per-IP limit covers, under the auth path (POST only). */
export const RATE_LIMITED_AUTH_ROUTES = [
  "/signup",
  "/login",
  "/refresh_token",
  "/tokens",
  "/password",
] as const;

/** Middleware spending 1 point of `limiter` per client IP on a `POST` to one of `routes`. */
export function authRouteLimiter(
  limiter: RateLimiterAbstract,
  authPath: string,
  routes: readonly string[],
  logger: Logger,
): RequestHandler {
  const canonical = (path: string) => path.toLowerCase().replace(/\/+$/, "");
  const paths = new Set(routes.map((route) => canonical(authPath + route)));
  return (req: Request, _res: Response, next: NextFunction) => {
    // Express routes ignore case and a trailing slash; so must the match, or `/auth/Login/`
    // would reach the login route unlimited.
    if (req.method !== "POST" || !paths.has(canonical(req.path))) return next();
    spend(
      limiter,
      `ip:${clientIp(req)}`,
      1,
      "Too many requests to the auth routes from this address.",
      logger,
    ).then(() => next(), next);
  };
}
