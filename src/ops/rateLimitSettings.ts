/**
 * The app's rate-limit options, their defaults, and how they resolve to the windows that are
 * enforced; plus the checks every window and limiter name goes through (rateLimit.ts).
 */
import type { RateLimitWindow } from "../core/types.js";
import { DEFAULT_LOGIN_LOCKOUT, type LoginLockoutOptions, resolveLockout } from "./loginLockout.js";
import type { RateLimitStore } from "./rateLimitStore.js";

export interface AuthRateLimitOptions {
  /**
   * Requests per client IP to `POST` signup, login, refresh_token, tokens and password under
   * the auth path (and, with `oauthServer`, its sign-in, sign-up, registration and token endpoints).
   * Default 30 per 60 s; `false` for none.
   */
  perIp?: RateLimitWindow | false;
  /** Locks an account after repeated failed logins (loginLockout.ts). `false` for none. */
  lockout?: LoginLockoutOptions | false;
}

export interface RateLimitOptions {
  /** Where counters live. Default `"memory"` (per process); `"mongo"` shares them across instances. */
  store?: RateLimitStore;
  /** Auth routes; `false` for none. Default: 30/min per IP, lockout after 5 failures. */
  auth?: AuthRateLimitOptions | false;
  /** REST POST/PATCH/DELETE per caller. Default 600 per 60 s; `false` for none. */
  writes?: RateLimitWindow | false;
  /** MCP `tools/call` and getMCPTools calls per caller. Default 600 per 60 s; `false` for none. */
  toolCalls?: RateLimitWindow | false;
  /**
   * Shared stores (MongoDB, Redis): how many points of `writes`, `toolCalls` and the routers'
   * own limits an instance takes from the store at a time and spends locally (rateLimitBatch.ts),
   * at most 2% of the window's points. Default 10; `1` asks the store on every request. Across
   * N instances a caller never gets more than `points` per window and is refused early by at
   * most (N − 1) × (batch − 1) points. The memory store and the auth limits count exactly.
   */
  batch?: number;
}

const DEFAULT_RATE_LIMIT_BATCH = 10;

/** The configured batch on a shared store (checked), or undefined on the memory store. */
export function sharedStoreBatch(options: RateLimitOptions): number | undefined {
  if ((options.store ?? "memory") === "memory") return undefined;
  const batch = options.batch ?? DEFAULT_RATE_LIMIT_BATCH;
  if (!Number.isInteger(batch) || batch < 1) {
    throw new Error(`rateLimit.batch must be a positive integer (got ${batch}).`);
  }
  return batch;
}

/** The batch a window gets: `batch`, at most 2% of its points, at least 1. */
export function batchFor(window: RateLimitWindow, batch: number): number {
  return Math.max(1, Math.min(batch, Math.floor(window.points / 50)));
}

export const DEFAULT_RATE_LIMITS = {
  auth: { perIp: { points: 30, duration: 60 }, lockout: DEFAULT_LOGIN_LOCKOUT },
  writes: { points: 600, duration: 60 },
  toolCalls: { points: 600, duration: 60 },
} as const;

export const LIMITER_NAME = /^[a-z][a-z0-9_]{0,63}$/;

export function checkWindow(window: RateLimitWindow, name: string): RateLimitWindow {
  const { points, duration } = window;
  if (!Number.isInteger(points) || points < 1) {
    throw new Error(`rate limit "${name}": points must be a positive integer (got ${points}).`);
  }
  // rate-limiter-flexible's memory store times out with setTimeout: at most ~24 days.
  if (!Number.isInteger(duration) || duration < 1 || duration > 2_147_483) {
    throw new Error(
      `rate limit "${name}": duration must be a whole number of seconds, 1 to 2147483 (got ${duration}).`,
    );
  }
  return { points, duration };
}

/** The windows an app enforces: a window left out is off. */
export interface Settings {
  authPerIp?: RateLimitWindow;
  lockout?: Required<LoginLockoutOptions>;
  writes?: RateLimitWindow;
  toolCalls?: RateLimitWindow;
}

export function resolveSettings(options: RateLimitOptions): Settings {
  const auth = options.auth === false ? undefined : (options.auth ?? {});
  const windowOf = (value: RateLimitWindow | false | undefined, fallback: RateLimitWindow) =>
    value === false ? undefined : (value ?? fallback);
  return {
    authPerIp: auth && windowOf(auth.perIp, DEFAULT_RATE_LIMITS.auth.perIp),
    lockout: auth && auth.lockout !== false ? resolveLockout(auth.lockout) : undefined,
    writes: windowOf(options.writes, DEFAULT_RATE_LIMITS.writes),
    toolCalls: windowOf(options.toolCalls, DEFAULT_RATE_LIMITS.toolCalls),
  };
}
