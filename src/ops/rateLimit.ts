/**
 * Rate limits, counted by rate-limiter-flexible on the app's store (memory, MongoDB or Redis):
 *
 * - auth routes: requests per client IP, and a login lockout per account (loginLockout.ts);
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
 */
import { isIPv4, isIPv6 } from "node:net";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { type RateLimiterAbstract, RateLimiterRes } from "rate-limiter-flexible";
import { consoleLogger, type Logger } from "../core/logger.js";
import type { Resource } from "../core/resource.js";
import type { RateLimitWindow, User } from "../core/types.js";
import {
  DEFAULT_LOGIN_LOCKOUT,
  hashKey,
  type LoginGuard,
  type LoginLockoutOptions,
  loginLockout,
  rateLimited,
  resolveLockout,
  retryAfterSeconds,
} from "./loginLockout.js";
import { type LimiterFactory, limiterFactory, type RateLimitStore } from "./rateLimitStore.js";

export type { RateLimitWindow } from "../core/types.js";
export {
  type LoginGuard,
  type LoginLockoutOptions,
  rateLimited,
  retryAfterSeconds,
} from "./loginLockout.js";
export {
  RATE_LIMIT_COLLECTION,
  type RateLimitStore,
  type RedisClientLike,
} from "./rateLimitStore.js";

export interface AuthRateLimitOptions {
  /**
   * Requests per client IP to `POST` signup, login, refresh_token, tokens and password under
   * the auth path (and, with `oauthServer`, its sign-in, registration and token endpoints).
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
}

export const DEFAULT_RATE_LIMITS = {
  auth: { perIp: { points: 30, duration: 60 }, lockout: DEFAULT_LOGIN_LOCKOUT },
  writes: { points: 600, duration: 60 },
  toolCalls: { points: 600, duration: 60 },
} as const;

/** The auth routes the per-IP limit covers, under the auth path (POST only). */
export const RATE_LIMITED_AUTH_ROUTES = [
  "/signup",
  "/login",
  "/refresh_token",
  "/tokens",
  "/password",
] as const;

/** Which limit a call spends. */
export type LimitedAction = "write" | "toolCall";

export interface LimitedCall {
  action: LimitedAction;
  /** What is written, or whose tool is called: its router's `rateLimit` replaces the app's. */
  resource?: Resource;
  user?: Pick<User, "id">;
  /** The client address (`clientIp(req)`), when the call came over HTTP. */
  ip?: string;
}

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

function checkWindow(window: RateLimitWindow, name: string): RateLimitWindow {
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

/**
 * The address a request came from: Express's `req.ip` (so `trust proxy` decides whether
 * `X-Forwarded-For` counts), IPv4-mapped IPv6 as IPv4, other IPv6 addresses as their /64 (one
 * host usually owns a whole /64).
 */
export function clientIp(req: Pick<Request, "ip" | "socket">): string {
  const raw = (req.ip ?? req.socket?.remoteAddress ?? "").replace(/%.*$/, "");
  if (raw.startsWith("::ffff:") && isIPv4(raw.slice(7))) return raw.slice(7);
  if (!isIPv6(raw)) return raw || "unknown";
  const [head, tail = ""] = raw.split("::");
  const left = head ? head.split(":") : [];
  const right = raw.includes("::") && tail ? tail.split(":") : [];
  const groups = raw.includes("::")
    ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right]
    : raw.split(":");
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(":")}::/64`;
}

/** The key a caller is counted under: `user:<id>`, else `ip:<address>`, else `anonymous`. */
export function callerKey(user: Pick<User, "id"> | undefined, ip?: string): string {
  if (user?.id) return `user:${user.id}`;
  return ip ? `ip:${ip}` : "anonymous";
}

/** Keys go to the store as they are when plain, else hashed (no odd bytes in a database). */
function storeKey(key: string): string {
  return /^[\w.:@/-]{1,160}$/.test(key) ? key : `h_${hashKey(key)}`;
}

async function spend(
  limiter: RateLimiterAbstract,
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

function handle(
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
      const keyOf =
        options.key ??
        ((req: Request) => callerKey((req as Request & { user?: User }).user, clientIp(req)));
      return (req: Request, _res: Response, next: NextFunction) => {
        consume(keyOf(req), options.cost ?? 1).then(() => next(), next);
      };
    },
  };
}

const LIMITER_NAME = /^[a-z][a-z0-9_]{0,63}$/;

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

interface Settings {
  authPerIp?: RateLimitWindow;
  lockout?: Required<LoginLockoutOptions>;
  writes?: RateLimitWindow;
  toolCalls?: RateLimitWindow;
}

function resolveSettings(options: RateLimitOptions): Settings {
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

interface Named {
  window: RateLimitWindow;
  limiter: RateLimiterAbstract;
  handle: RateLimit;
}

/**
 * An app's rate limits (TerrenoApp makes one from `options.rateLimit`). Off (`rateLimit`
 * absent or `false`): nothing is counted, but `limiter()` still works, on the memory store.
 */
export class RateLimits {
  readonly enabled: boolean;
  /** The login lockout, when on; the JWT login route asks it. */
  readonly loginGuard?: LoginGuard;
  private readonly settings: Settings;
  private readonly make: LimiterFactory;
  private readonly named = new Map<string, Named>();

  constructor(
    options: RateLimitOptions | false | undefined,
    private readonly logger: Logger,
  ) {
    this.enabled = Boolean(options);
    this.settings = options ? resolveSettings(options) : {};
    for (const [name, window] of Object.entries({
      "auth.perIp": this.settings.authPerIp,
      writes: this.settings.writes,
      toolCalls: this.settings.toolCalls,
    })) {
      if (window) checkWindow(window, name);
    }
    this.make = limiterFactory(options ? options.store : "memory", logger);
    if (this.settings.lockout) {
      this.loginGuard = loginLockout(
        (name, window) => this.store(name, window),
        this.settings.lockout,
        logger,
      );
    }
  }

  /**
   * Resolves once the store is usable: at once for memory and Redis; for MongoDB, once the
   * connection is open and the collection indexed (until then counts are kept in memory).
   */
  ready(): Promise<void> {
    return this.make.ready();
  }

  /** A named limiter on this app's store, made once (the same name twice must mean the same). */
  limiter(name: string, window: RateLimitWindow): RateLimit {
    if (!LIMITER_NAME.test(name)) throw new Error(`rate limit name "${name}" must be snake_case.`);
    this.store(name, window);
    return (this.named.get(name) as Named).handle;
  }

  private store(name: string, window: RateLimitWindow): RateLimiterAbstract {
    const existing = this.named.get(name);
    if (existing) {
      if (existing.window.points !== window.points || existing.window.duration !== window.duration)
        throw new Error(`rate limit "${name}" is already defined with another window.`);
      return existing.limiter;
    }
    const checked = checkWindow(window, name);
    const limiter = this.make({ keyPrefix: `terreno_${name}`, ...checked });
    this.named.set(name, {
      window: checked,
      limiter,
      handle: handle(name, checked, limiter, this.logger),
    });
    return limiter;
  }

  /**
   * THE rule, for every surface: a REST write spends 1 point of `writes`, a tool call (MCP or
   * AI) 1 point of `toolCalls`, counted per user (else per client IP, else one `anonymous`
   * key); a router's own `rateLimit` replaces the app's window with a bucket of its own, and
   * `rateLimit: false` exempts it. Throws `rate_limited` when the caller has no points left.
   */
  async consume(call: LimitedCall): Promise<void> {
    if (!this.enabled) return;
    const own = call.resource?.options.rateLimit;
    if (own === false) return;
    const write = call.action === "write";
    const base = write ? "writes" : "tool_calls";
    const window = own ?? (write ? this.settings.writes : this.settings.toolCalls);
    if (!window) return;
    const name = own
      ? `${base}_${call.resource?.model.modelName.toLowerCase()}_${own.points}_${own.duration}`
      : base;
    const limiter = this.store(name.replace(/[^a-z0-9_]/g, "_").slice(0, 64), window);
    const reason = write ? "Too many writes." : "Too many tool calls.";
    await spend(limiter, callerKey(call.user, call.ip), 1, reason, this.logger);
  }

  /**
   * Checks the routers' own limits once at build (a bad window fails there, not per request)
   * and makes their limiters; warns when routers set limits the app does not enforce.
   */
  prepare(resources: readonly Resource[]): void {
    const limited = resources.filter((resource) => resource.options.rateLimit);
    if (!this.enabled) {
      if (limited.length > 0) {
        this.logger.warn(
          { models: limited.map((resource) => resource.model.modelName) },
          "terreno-mcp: routers set rateLimit but the app's rateLimit option is off; they are not limited",
        );
      }
      return;
    }
    for (const resource of limited) {
      const own = resource.options.rateLimit as RateLimitWindow;
      checkWindow(own, `${resource.model.modelName} rateLimit`);
    }
  }

  /**
   * The per-IP limit of the auth routes under `authPath` (by default the JWT ones; a plugin
   * names its own, e.g. the OAuth server's sign-in, registration and token), or undefined when
   * off. Every caller spends the one `auth_ip` bucket.
   */
  authRoutes(
    authPath: string,
    routes: readonly string[] = RATE_LIMITED_AUTH_ROUTES,
  ): RequestHandler | undefined {
    const window = this.enabled ? this.settings.authPerIp : undefined;
    if (!window) return undefined;
    const limiter = this.store("auth_ip", window);
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
        this.logger,
      ).then(() => next(), next);
    };
  }
}

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
