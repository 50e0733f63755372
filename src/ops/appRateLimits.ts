/**
 * `RateLimits`, an app's rate limits: the per-resource/per-caller rule every surface calls
 * (`consume`), the named limiters on the app's store, and the auth routes' per-IP limit.
 */
import type { RequestHandler } from "express";
import type { Connection } from "mongoose";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import type { Logger } from "../core/logger.js";
import type { Resource } from "../core/resource.js";
import type {
  LimitedCall as CoreLimitedCall,
  LimitedAction,
  RateLimitWindow,
} from "../core/types.js";
import { authRouteLimiter, RATE_LIMITED_AUTH_ROUTES } from "./authRateLimit.js";
import { type LoginGuard, loginLockout } from "./loginLockout.js";
import { BatchedLimiter, type PointLimiter } from "./rateLimitBatch.js";
import { handle, type RateLimit, spend } from "./rateLimitHandle.js";
import { callerKey } from "./rateLimitKeys.js";
import {
  batchFor,
  checkWindow,
  LIMITER_NAME,
  type RateLimitOptions,
  resolveSettings,
  type Settings,
  sharedStoreBatch,
} from "./rateLimitSettings.js";
import { type LimiterFactory, limiterFactory } from "./rateLimitStore.js";

export type { LimitedAction } from "../core/types.js";

/** One call that spends points: `AppServices.rateLimits`' argument, for the app's resources. */
export type LimitedCall = CoreLimitedCall<Resource>;

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
  /** What `consume()` spends from, per limiter name: batched on a shared store. */
  private readonly counters = new Map<string, PointLimiter>();
  /** The limiter names of a router's own window, computed once per resource and action. */
  private readonly ownNames = new WeakMap<Resource, Partial<Record<LimitedAction, string>>>();
  /** Points taken from a shared store at a time (1 on the memory store: it is exact anyway). */
  private readonly batch?: number;

  constructor(
    options: RateLimitOptions | false | undefined,
    private readonly logger: Logger,
    /** Where the `"mongo"` store keeps its counters: the app's connection (TerrenoApp's). */
    appConnection?: () => Connection,
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
    this.make = limiterFactory(options ? options.store : "memory", logger, appConnection);
    this.batch = options ? sharedStoreBatch(options) : undefined;
    if (this.settings.lockout) {
      // Kept in the user model's database, whatever `store` is (loginLockout.ts).
      this.loginGuard = loginLockout(this.settings.lockout, logger);
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
    const window = own ?? (write ? this.settings.writes : this.settings.toolCalls);
    if (!window) return;
    const name =
      own && call.resource
        ? this.ownName(call.resource, call.action, own)
        : write
          ? "writes"
          : "tool_calls";
    const reason = write ? "Too many writes." : "Too many tool calls.";
    await spend(this.counter(name, window), callerKey(call.user, call.ip), 1, reason, this.logger);
  }

  /** A router's own bucket: named by its model and window, so two windows never share counts. */
  private ownName(resource: Resource, action: LimitedAction, own: RateLimitWindow): string {
    let names = this.ownNames.get(resource);
    if (!names) {
      names = {};
      this.ownNames.set(resource, names);
    }
    const base = action === "write" ? "writes" : "tool_calls";
    names[action] ??=
      `${base}_${resource.model.modelName.toLowerCase()}_${own.points}_${own.duration}`
        .replace(/[^a-z0-9_]/g, "_")
        .slice(0, 64);
    return names[action];
  }

  /** The store's limiter for `name`, behind a local allowance when the store is shared. */
  private counter(name: string, window: RateLimitWindow): PointLimiter {
    let counter = this.counters.get(name);
    if (!counter) {
      const limiter = this.store(name, window);
      // On a shared store, even a batch of 1 keeps refused callers off the store until the
      // window ends; the memory store is in process already.
      counter =
        this.batch === undefined
          ? limiter
          : new BatchedLimiter(limiter, batchFor(window, this.batch));
      this.counters.set(name, counter);
    }
    return counter;
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
    return authRouteLimiter(this.store("auth_ip", window), authPath, routes, this.logger);
  }
}
