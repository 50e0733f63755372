/**
 * Brute-force protection for password logins: consecutive failures are counted per account and
 * client IP (a low threshold, so an attacker elsewhere cannot lock the owner out with a few
 * tries), per account from any IP (a higher threshold, against guessing spread over many
 * addresses), and per device token (src/auth/deviceTokens.ts). Reaching a threshold locks (for
 * that IP, for everyone, or for that device) with a growing block:
 *
 * - the failure that reaches the threshold locks for `lockSeconds`;
 * - attempts while locked are refused with 429 before the password is checked, and never
 *   lengthen the lock (so an attacker cannot keep it growing, and the owner's right password
 *   sent during a lock costs nothing);
 * - after a lock ends, the next failure locks again at once, doubled (up to `maxLockSeconds`),
 *   until a successful login;
 * - a successful login forgets the failures and locks (of that IP and the account, or of the
 *   device).
 *
 * Races: an attempt is COUNTED BEFORE its password is checked. It claims a slot by unique insert
 * (claimCounter.ts): slots 1…threshold of the current round, then 1 per round after a lock. An
 * attempt that finds every slot claimed (judged, or in flight) is refused as locked, and the
 * lock starts; the attempt holding the last slot starts it too when it fails. A success refunds
 * (clears) the counts. So however many guesses arrive at once, on however many instances and
 * connections, at most `threshold` are judged per round, on MongoDB and on FerretDB alike.
 *
 * The counts live in the user model's database (`terreno_claims`), whatever the rate-limit
 * store: a lock must hold across every instance. Failures are remembered for
 * `failureWindowSeconds` after the first of a round, and a lock's level as long after it ends.
 * Accounts are keyed by a hash of the normalized email, so the store never holds addresses.
 */
import { createHash } from "node:crypto";
import type { Connection } from "mongoose";
import { TerrenoError } from "../core/errors.js";
import type { Logger } from "../core/logger.js";
import { type Claim, ClaimStore } from "./claimCounter.js";

export interface LoginLockoutOptions {
  /** Consecutive failed logins for one account from one IP (or one device) before it is locked there. Default 5. */
  maxFailures?: number;
  /** Consecutive failed logins for one account from any IP before it is locked for all. Default 20. */
  maxAccountFailures?: number;
  /** The first lock, in seconds; each further lock doubles it. Default 60. */
  lockSeconds?: number;
  /** The longest lock, in seconds. Default 3600. */
  maxLockSeconds?: number;
  /** How long failures are remembered without a successful login, in seconds. Default 86400. */
  failureWindowSeconds?: number;
}

/** A login attempt that was counted before its password is checked: tell how it ended. */
interface ClaimedAttempt {
  /** The password was wrong: the attempt stays counted (and locks when it was the last slot). */
  failed(): Promise<void>;
  /** The password was right: the counts and locks are forgotten. */
  succeeded(): Promise<void>;
}

export type AttemptClaim =
  | { kind: "locked"; seconds: number }
  | { kind: "claimed"; attempt: ClaimedAttempt };

/** What the login judge asks before checking a password (src/auth/loginJudge.ts). */
export interface LoginGuard {
  readonly settings: Required<LoginLockoutOptions>;
  /**
   * Claims an attempt on `account` from `ip` by a client without a device token, in
   * `connection`'s database (the user model's): counted per account and IP, and per account.
   */
  claim(connection: Connection, account: string, ip: string): Promise<AttemptClaim>;
  /** Claims an attempt presenting the device token whose record id is `deviceId`. */
  claimDevice(connection: Connection, deviceId: string): Promise<AttemptClaim>;
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

/** One count: the claims of `group`, locking at `threshold` failures in its first round. */
interface Counter {
  name: string;
  group: string;
  threshold: number;
}

/** What a read of a counter found: its lock level and when that lock ends (0: never locked). */
interface Reading {
  counter: Counter;
  claims: Claim[];
  level: number;
  until: number;
}

/** An attempt's slot: slot `n` of `limit` in the round after lock `level`. */
interface Slot {
  counter: Counter;
  series: string;
  n: number;
  limit: number;
  level: number;
}

/** The series of a counter's locks: slot L is its L-th lock, `data.until` when it ends. */
const LOCKS = "lock";

function readingOf(counter: Counter, claims: Claim[]): Reading {
  let level = 0;
  let until = 0;
  for (const claim of claims) {
    if (claim.series === LOCKS && claim.n > level) {
      level = claim.n;
      until = Number(claim.data.until) || 0;
    }
  }
  return { counter, claims, level, until };
}

/**
 * The login lockout: counts in `terreno_claims` on the connection each call names (the user
 * model's). A store failure never turns a login into a 500: the attempt is judged uncounted
 * and a warning logged.
 */
export function loginLockout(options: Required<LoginLockoutOptions>, logger: Logger): LoginGuard {
  const windowMs = options.failureWindowSeconds * 1000;
  const lockLength = (level: number) =>
    Math.min(options.lockSeconds * 2 ** Math.min(level - 1, 30), options.maxLockSeconds);

  const read = async (store: ClaimStore, counter: Counter) =>
    readingOf(counter, await store.claims(counter.group));

  /** Starts lock `level` (once: whoever inserts it first); the seconds it lasts. */
  const startLock = async (store: ClaimStore, counter: Counter, level: number) => {
    const seconds = lockLength(level);
    const until = Date.now() + seconds * 1000;
    // Its level is remembered for the window after it ends: the next lock doubles.
    await store.claimAt(counter.group, LOCKS, level, new Date(until + windowMs), { until });
    return seconds;
  };

  /** Locked seconds, or the slot this attempt claimed in the current round. */
  const claimIn = async (store: ClaimStore, reading: Reading): Promise<number | Slot> => {
    const { counter, claims, level, until } = reading;
    // Round 0 allows `threshold` failures; after a lock ends, one, which locks again.
    const series = level === 0 ? "round0" : `round${level}@${until}`;
    const limit = level === 0 ? counter.threshold : 1;
    const round = claims.filter((claim) => claim.series === series);
    // A round is forgotten as a whole, the window after its first failure.
    const expiresAt = round[0]?.expiresAt ?? new Date(Date.now() + windowMs);
    const taken = round.map((claim) => claim.n);
    const n = await store.claimNext(counter.group, series, limit, expiresAt, taken);
    // Every slot is claimed, by failures or attempts still in flight: the lock starts now (a
    // success among those in flight clears it again).
    if (n === undefined) return startLock(store, counter, level + 1);
    return { counter, series, n, limit, level };
  };

  const lockedSeconds = (readings: Reading[]): number | undefined => {
    const now = Date.now();
    const longest = Math.max(0, ...readings.map((reading) => reading.until - now));
    return longest > 0 ? retryAfterSeconds(longest) : undefined;
  };

  const safely = async <T>(counter: Counter, step: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await step();
    } catch (error) {
      logger.warn(
        { err: error, scope: counter.name },
        "terreno-mcp: login lockout store failed; attempt not counted",
      );
      return undefined;
    }
  };

  const attemptOf = (store: ClaimStore, slots: Slot[]): ClaimedAttempt => ({
    async failed() {
      for (const slot of slots) {
        // The last slot of a round locks; a concurrent full round may have locked already.
        if (slot.n === slot.limit) {
          await safely(slot.counter, () => startLock(store, slot.counter, slot.level + 1));
        }
      }
    },
    async succeeded() {
      for (const slot of slots) await safely(slot.counter, () => store.clear(slot.counter.group));
    },
  });

  const uncounted: ClaimedAttempt = { failed: async () => {}, succeeded: async () => {} };

  /** Reads every counter, refuses if one is locked, else claims a slot in each (in order). */
  const claim = async (connection: Connection, counters: Counter[]): Promise<AttemptClaim> => {
    const store = ClaimStore.on(connection);
    const first = counters[0] as Counter;
    const outcome = await safely(first, async (): Promise<AttemptClaim> => {
      const readings = await Promise.all(counters.map((counter) => read(store, counter)));
      const locked = lockedSeconds(readings);
      if (locked) return { kind: "locked", seconds: locked };
      const slots: Slot[] = [];
      for (const reading of readings) {
        const slot = await claimIn(store, reading);
        if (typeof slot === "number") {
          // Not judged, so not counted: the slots already claimed are refunded.
          for (const held of slots) await store.release(held.counter.group, held.series, held.n);
          return { kind: "locked", seconds: slot };
        }
        slots.push(slot);
      }
      return { kind: "claimed", attempt: attemptOf(store, slots) };
    });
    return outcome ?? { kind: "claimed", attempt: uncounted };
  };

  return {
    settings: options,
    claim: (connection, account, ip) =>
      claim(connection, [
        {
          name: "account_ip",
          group: `login_ip:${hashKey(account)}:${ip}`,
          threshold: options.maxFailures,
        },
        {
          name: "account",
          group: `login:${hashKey(account)}`,
          threshold: options.maxAccountFailures,
        },
      ]),
    claimDevice: (connection, deviceId) =>
      claim(connection, [
        { name: "device", group: `device:${deviceId}`, threshold: options.maxFailures },
      ]),
  };
}
