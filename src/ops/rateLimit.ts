/**
 * Rate limits, counted by rate-limiter-flexible on the app's store (memory, MongoDB or Redis):
 *
 * - auth routes: requests per client IP, and a login lockout per account (loginLockout.ts, whose
 *   counts are claims in the user model's database, not this store);
 * - REST writes and tool calls (MCP `tools/call` and getMCPTools): points per caller (the user,
 *   else the client IP) per window, app-wide, or per router with `modelRouter(M, {rateLimit})`;
 * - named limiters for plugins, e.g. a chat route: `app.rateLimiter("chat", {points, duration})`.
 *
 * `RateLimits.consume()` is the one rule every adapter calls (REST, MCP, AI tools): which
 * limiter, which key and how many points. A refusal is `TerrenoError("rate_limited")` with a
 * `Retry-After` header, so the one error table answers it on every surface.
 *
 * Windows are rate-limiter-flexible's fixed windows, starting at a key's first request: a
 * bucket of `points` refilled all at once after `duration` seconds, so `{points: 10, duration:
 * 10}` allows bursts of 10 and 1 per second on average.
 *
 * This module is the entry point; the parts live beside it: rateLimitSettings.ts (options,
 * defaults, checks), rateLimitKeys.ts (client IP and keys), rateLimitHandle.ts (spending and
 * the `RateLimit` handle), appRateLimits.ts (`RateLimits`), authRateLimit.ts (the auth
 * routes' per-IP limit), restWriteLimit.ts (REST middleware), loginLockout.ts and
 * rateLimitStore.ts.
 */
export type { RateLimitWindow } from "../core/types.js";
export { RateLimits } from "./appRateLimits.js";

export type {
  LoginGuard,
  LoginLockoutOptions,
} from "./loginLockout.js";
export { type CreateRateLimitOptions, createRateLimit, type RateLimit } from "./rateLimitHandle.js";
export { callerKey, clientIp } from "./rateLimitKeys.js";
export {
  type AuthRateLimitOptions,
  DEFAULT_RATE_LIMITS,
  type RateLimitOptions,
} from "./rateLimitSettings.js";
export {
  RATE_LIMIT_COLLECTION,
  type RateLimitStore,
  type RedisClientLike,
} from "./rateLimitStore.js";
export { restWriteLimit } from "./restWriteLimit.js";
