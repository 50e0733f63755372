/**
 * Spending points, and the `RateLimit` handle (consume + Express middleware) a named limiter is
 * used through: a refusal is `TerrenoError("rate_limited")` with a `Retry-After`, so TerrenoApp
 * answers 429 on every surface.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { type RateLimiterAbstract, RateLimiterRes } from "rate-limiter-flexible";
import { consoleLogger, type Logger } from "../core/logger.js";
import type { RateLimitWindow } from "../core/types.js";
import { rateLimited, retryAfterSeconds } from "./loginLockout.js";
import type { PointLimiter } from "./rateLimitBatch.js";
import { callerKey, clientIp, storeKey } from "./rateLimitKeys.js";
import { checkWindow, LIMITER_NAME } from "./rateLimitSettings.js";
import { limiterFactory, type RateLimitStore } from "./rateLimitStore.js";

/** A limiter for a plugin's own route: `points` per caller per `duration` seconds. */
export interface RateLimit {
  readonly name: string;
  readonly points: number;
  readonly duration: number;
  /** Spends `cost` (default 1) of `key`'s points; throws `rate_limited` when too few are left. */
  consume(key: string, cost?: number): Promise<void>;
  /**
   * Express middleware spending `cost` per request, keyed by `key(req)` (default: the caller,
   * `callerKey`). A refusal goes to `next(error)`, so TerrenoApp answers 429 with Retry-After.
   */
  middleware(options?: { cost?: number; key?: (req: Request) => string }): RequestHandler;
}

export interface CreateRateLimitOptions extends RateLimitWindow {
  name: string;
  /** Default `"memory"`. */
  store?: RateLimitStore;
  /** Where store failures are reported. Default: the console. */
  logger?: Logger;
}

export async function spend(
  limiter: PointLimiter,
  key: string,
  cost: number,
  reason: string,
  logger: Logger,
): Promise<void> {
  try {
    await limiter.consume(storeKey(key), cost);
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      throw rateLimited(reason, retryAfterSeconds(rejection.msBeforeNext));
    }
    // The store and its in-memory fallback both failed: serve the request rather than fail it.
    logger.warn(
      { err: rejection, limiter: limiter.keyPrefix },
      "terreno-mcp: rate limiter failed; request allowed",
    );
  }
}

export function handle(
  name: string,
  window: RateLimitWindow,
  limiter: RateLimiterAbstract,
  logger: Logger,
): RateLimit {
  const consume = (key: string, cost = 1) =>
    spend(limiter, key, cost, `Too many requests (${name}).`, logger);
  return {
    name,
    points: window.points,
    duration: window.duration,
    consume,
    middleware(options = {}) {
      const keyOf = options.key ?? ((req: Request) => callerKey(req.user, clientIp(req)));
      return (req: Request, _res: Response, next: NextFunction) => {
        consume(keyOf(req), options.cost ?? 1).then(() => next(), next);
      };
    },
  };
}

/**
 * A standalone limiter, outside any TerrenoApp (inside one, prefer `app.rateLimiter(name,
 * window)`: it uses the app's store). E.g. a chat route: `createRateLimit({name: "chat",
 * points: 10, duration: 10})`, then `router.post("/chat", chat.middleware(), handler)`.
 */
export function createRateLimit(options: CreateRateLimitOptions): RateLimit {
  const { name, store, logger = consoleLogger } = options;
  if (!LIMITER_NAME.test(name)) throw new Error(`rate limit name "${name}" must be snake_case.`);
  const window = checkWindow(options, name);
  const limiter = limiterFactory(store, logger)({ keyPrefix: `terreno_${name}`, ...window });
  return handle(name, window, limiter, logger);
}
