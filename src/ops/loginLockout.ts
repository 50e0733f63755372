/**
 * Brute-force protection for password logins, after rate-limiter-flexible's login pattern:
 * consecutive failures are counted per account and client IP (a low threshold, so an attacker
 * elsewhere cannot lock the owner out with a few tries) and per account from any IP (a higher
 * threshold, against guessing spread over many addresses). Reaching either locks the account
 * (for that IP, or for everyone) with a growing block:
 *
 * - the failure that reaches the threshold locks for `lockSeconds`;
 * - attempts while locked are refused with 429 before the password is checked, and never
 *   lengthen the lock (so an attacker cannot keep it growing, and the owner's right password
 *   sent during a lock costs nothing);
 * - after a lock ends, the next failure locks again at once, doubled (up to `maxLockSeconds`),
 *   until a successful login;
 * - a successful login forgets the account's failures and locks (for that IP and overall).
 *
 * These locks apply to clients without a device token only: one presenting a valid device
 * token is judged by that device's own counter (src/auth/loginJudge.ts), so the owner is never
 * locked out by someone else's failures.
 *
 * Failures are remembered for `failureWindowSeconds` after the first one. Accounts are keyed
 * by a hash of the normalized email, so the store never holds addresses.
 */
import { createHash } from "node:crypto";
import { type RateLimiterAbstract, RateLimiterRes } from "rate-limiter-flexible";
import { TerrenoError } from "../core/errors.js";
import type { Logger } from "../core/logger.js";
import type { RateLimitWindow } from "../core/types.js";

export interface LoginLockoutOptions {
  /** Consecutive failed logins for one account from one IP before it is locked there. Default 5. */
  maxFailures?: number;
  /** Consecutive failed logins for one account from any IP before it is locked for all. Default 20. */
  maxAccountFailures?: number;
  /** The first lock, in seconds; each further attempt or failure doubles it. Default 60. */
  lockSeconds?: number;
  /** The longest lock, in seconds. Default 3600. */
  maxLockSeconds?: number;
  /** How long failures are remembered without a successful login, in seconds. Default 86400. */
  failureWindowSeconds?: number;
}

/** What the login route asks before checking a password and tells after. */
export interface LoginGuard {
  /** The thresholds and lock lengths, which device tokens use for their own counters too. */
  readonly settings: Required<LoginLockoutOptions>;
  /** Seconds this client must still wait while the account is locked for it; else undefined. */
  lockedFor(account: string, ip: string): Promise<number | undefined>;
  /** Throws `rate_limited` (429 + Retry-After) while the account is locked for this client. */
  check(account: string, ip: string): Promise<void>;
  failed(account: string, ip: string): Promise<void>;
  succeeded(account: string, ip: string): Promise<void>;
}

export const DEFAULT_LOGIN_LOCKOUT: Required<LoginLockoutOptions> = {
  maxFailures: 5,
  maxAccountFailures: 20,
  lockSeconds: 60,
  maxLockSeconds: 3600,
  failureWindowSeconds: 86_400,
};

/** Whole seconds a client waits: at least 1, as `Retry-After` requires. */
export function retryAfterSeconds(msBeforeNext: number): number {
  return Math.max(1, Math.ceil(msBeforeNext / 1000));
}

/** The one shape of a refusal: code `rate_limited` (429) with `Retry-After` in whole seconds. */
export function rateLimited(reason: string, seconds: number): TerrenoError {
  return new TerrenoError("rate_limited", `${reason} Retry in ${seconds} s.`, undefined, {
    headers: { "Retry-After": String(seconds) },
  });
}

export function hashKey(value: string): string {
  return createHash("sha256").update(value).digest("hex").slice(0, 32);
}

interface Scope {
  name: string;
  threshold: number;
  /** Counts failures; blocked (points + 1) while locked. */
  failures: RateLimiterAbstract;
  /** Counts locks since the last success: the exponent of the next lock. */
  locks: RateLimiterAbstract;
  key(account: string, ip: string): string;
}

type LimiterOf = (name: string, window: RateLimitWindow) => RateLimiterAbstract;

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`rateLimit.auth.lockout.${name} must be a positive integer (got ${value}).`);
  }
  return value;
}

export function resolveLockout(options: LoginLockoutOptions = {}): Required<LoginLockoutOptions> {
  const resolved = { ...DEFAULT_LOGIN_LOCKOUT, ...options };
  for (const [name, value] of Object.entries(resolved)) positiveInteger(value, name);
  if (resolved.maxLockSeconds < resolved.lockSeconds) {
    throw new Error("rateLimit.auth.lockout.maxLockSeconds must be at least lockSeconds.");
  }
  return resolved;
}

export function loginLockout(
  limiter: LimiterOf,
  options: Required<LoginLockoutOptions>,
  logger: Logger,
): LoginGuard {
  const window = options.failureWindowSeconds;
  const scopes: Scope[] = [
    {
      name: "account_ip",
      threshold: options.maxFailures,
      failures: limiter("login_failures_ip", { points: options.maxFailures, duration: window }),
      locks: limiter("login_locks_ip", { points: 1, duration: window }),
      key: (account, ip) => `${hashKey(account)}:${ip}`,
    },
    {
      name: "account",
      threshold: options.maxAccountFailures,
      failures: limiter("login_failures", { points: options.maxAccountFailures, duration: window }),
      locks: limiter("login_locks", { points: 1, duration: window }),
      key: (account) => hashKey(account),
    },
  ];

  const lock = async (scope: Scope, key: string): Promise<number> => {
    const level = (await scope.locks.penalty(key)).consumedPoints;
    const seconds = Math.min(
      options.lockSeconds * 2 ** Math.min(Math.max(level - 1, 0), 30),
      options.maxLockSeconds,
    );
    await scope.failures.block(key, seconds);
    return seconds;
  };

  // A store failure (and its in-memory fallback's) never turns a login into a 500.
  const guarded = async (scope: Scope, step: () => Promise<void>): Promise<void> => {
    try {
      await step();
    } catch (error) {
      if (error instanceof TerrenoError) throw error;
      logger.warn(
        { err: error, scope: scope.name },
        "terreno-mcp: login lockout store failed; attempt not counted",
      );
    }
  };

  const lockedFor = async (account: string, ip: string): Promise<number | undefined> => {
    let longest: number | undefined;
    for (const scope of scopes) {
      await guarded(scope, async () => {
        const state = await scope.failures.get(scope.key(account, ip));
        if (!state || state.consumedPoints <= scope.threshold) return;
        // Read only: an attempt while locked never lengthens the lock, or anyone could keep a
        // victim locked out for good with one request per lock period.
        const seconds = retryAfterSeconds(state.msBeforeNext);
        longest = Math.max(longest ?? 0, seconds);
      });
    }
    return longest;
  };

  return {
    settings: options,
    lockedFor,

    async check(account, ip) {
      const seconds = await lockedFor(account, ip);
      if (seconds) throw rateLimited("Too many failed logins for this account.", seconds);
    },

    async failed(account, ip) {
      for (const scope of scopes) {
        await guarded(scope, async () => {
          const key = scope.key(account, ip);
          let exhausted: boolean;
          try {
            exhausted = (await scope.failures.consume(key)).remainingPoints <= 0;
          } catch (rejection) {
            if (!(rejection instanceof RateLimiterRes)) throw rejection;
            exhausted = true; // a concurrent failure got there first
          }
          // Locked before and no success since: the next failure locks again at once.
          const relock = !exhausted && ((await scope.locks.get(key))?.consumedPoints ?? 0) > 0;
          if (exhausted || relock) await lock(scope, key);
        });
      }
    },

    async succeeded(account, ip) {
      for (const scope of scopes) {
        await guarded(scope, async () => {
          const key = scope.key(account, ip);
          await Promise.all([scope.failures.delete(key), scope.locks.delete(key)]);
        });
      }
    },
  };
}
