/**
 * A local allowance per key, taken from a shared limiter (MongoDB, Redis) in batches, so most
 * counted requests never wait for the store: one store round trip per `batch` points instead
 * of one per request. Callers over the limit are blocked in memory until the store's window
 * ends (the store cannot refill before then), so they cost no round trip either.
 *
 * The bound, across N instances sharing the store: within one window a key is never granted
 * more than `points` (every point granted here was counted in the store first); a key may be
 * refused early by at most (N − 1) × (batch − 1) points, the allowances other instances took
 * and have not spent yet. An allowance expires with the store's window (timed from before the
 * store was asked, so never later than the store's own end).
 */
import { type RateLimiterAbstract, RateLimiterRes } from "rate-limiter-flexible";

interface Allowance {
  /** Points granted by the store and not spent yet. */
  left: number;
  /** When the store's window these points belong to ends (ms since the epoch). */
  until: number;
  /** Set when the store refused: every call is refused in memory until then. */
  blockedUntil: number;
  /** The store request in flight for this key, which other calls wait for. */
  pending?: Promise<void>;
}

/** What the spending code needs of a limiter: rate-limiter-flexible's `consume` and prefix. */
export interface PointLimiter {
  readonly keyPrefix: string;
  consume(key: string, points?: number): Promise<unknown>;
}

/** Sweep expired allowances when this many keys are held. */
const SWEEP_AT = 10_000;

export class BatchedLimiter implements PointLimiter {
  private readonly allowances = new Map<string, Allowance>();

  constructor(
    private readonly shared: Pick<RateLimiterAbstract, "consume" | "keyPrefix" | "points">,
    /** Points taken from the store at a time (1: every request asks the store). */
    readonly batch: number,
  ) {}

  get keyPrefix(): string {
    return this.shared.keyPrefix;
  }

  /** Spends `cost` of `key`'s points; rejects with a RateLimiterRes when too few are left. */
  async consume(key: string, cost = 1): Promise<void> {
    for (;;) {
      const now = Date.now();
      let allowance = this.allowances.get(key);
      if (allowance && allowance.until <= now && !allowance.pending) {
        this.allowances.delete(key);
        allowance = undefined;
      }
      if (allowance && allowance.left >= cost && allowance.until > now) {
        allowance.left -= cost;
        return;
      }
      if (allowance && allowance.blockedUntil > now) {
        throw new RateLimiterRes(0, allowance.blockedUntil - now, this.shared.points + 1, false);
      }
      if (allowance?.pending) {
        await allowance.pending;
        continue;
      }
      const entry: Allowance = allowance ?? { left: 0, until: 0, blockedUntil: 0 };
      if (!allowance) {
        if (this.allowances.size >= SWEEP_AT) this.sweep(now);
        this.allowances.set(key, entry);
      }
      const refusal = await this.take(key, entry, Math.max(cost, this.batch), now);
      if (refusal) throw refusal;
    }
  }

  /** Asks the store for `take` points; resolves with the refusal when it has none to give. */
  private take(
    key: string,
    entry: Allowance,
    take: number,
    askedAt: number,
  ): Promise<RateLimiterRes | undefined> {
    let refusal: RateLimiterRes | undefined;
    const pending = this.shared.consume(key, take).then(
      (res) => {
        if (entry.until <= askedAt) entry.left = 0;
        entry.left += take;
        entry.until = askedAt + res.msBeforeNext;
      },
      (rejection: unknown) => {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        // The store counted all `take` points; those it had left are still ours to spend.
        const before = rejection.consumedPoints - take;
        const granted = Math.max(0, Math.min(take, this.shared.points - before));
        if (entry.until <= askedAt) entry.left = 0;
        entry.left += granted;
        entry.until = askedAt + rejection.msBeforeNext;
        // Nothing more in this window: refuse in memory until it ends.
        entry.blockedUntil = entry.until;
        if (granted === 0) refusal = rejection;
      },
    );
    entry.pending = pending.finally(() => {
      entry.pending = undefined;
    });
    return entry.pending.then(
      () => refusal,
      (error: unknown) => {
        // The store and its insurance failed: forget the key, let the caller decide.
        this.allowances.delete(key);
        throw error;
      },
    );
  }

  private sweep(now: number): void {
    for (const [key, allowance] of this.allowances) {
      if (allowance.until <= now && allowance.blockedUntil <= now && !allowance.pending) {
        this.allowances.delete(key);
      }
    }
  }
}
