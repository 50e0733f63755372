/**
 * Counting by claim: THE concurrency primitive for counters and "first writer wins" records that
 * must be exact on MongoDB and on FerretDB. Reuse it; do not write a second one.
 *
 * Why: FerretDB 1.x does not isolate concurrent updates of one document made over different
 * connections (`$inc`, a conditional update and a compare-and-set all lose or double writes;
 * docs/production.md, "What the counters guarantee"). What it does keep under any race is the
 * uniqueness of `_id`: of N concurrent `insertOne`s of one `_id`, exactly one succeeds. So a
 * count is kept as claimed slots: `{_id: "<group>|<series>|<n>"}` for n = 1, 2, …, each
 * claimed by `insertOne`, a duplicate key meaning "taken, try n + 1". The n a caller claimed IS
 * its place in the count, returned by the store, never computed from a count read earlier; and
 * with a limit, no more than `limit` slots can exist, whatever the number of instances and
 * connections. A single `_id` claimed once (`claimAt`) is a lock, a `(record, version)` slot or
 * an idempotency key.
 *
 * Users: the login lockout and device locks (loginLockout.ts), the `(record, version)` lock of
 * every framework write (versionClaims.ts), and idempotency keys (idempotency.ts).
 *
 * Claims live in `terreno_claims` on the connection given (the user model's, for logins). Each
 * expires at its `expiresAt`: deleted by MongoDB's TTL monitor, and, since that runs once a
 * minute and FerretDB 1.x has no TTL indexes, also ignored and deleted when a group is read, and
 * swept from the whole collection at most once a minute per process (groups never read again,
 * such as a mistyped email's, would otherwise stay on FerretDB).
 */
import type { Connection } from "mongoose";

const CLAIM_COLLECTION = "terreno_claims";
const DUPLICATE_KEY = 11000;
const NOT_IMPLEMENTED = 238;
/** The least time between two sweeps of every expired claim, per store (per process). */
const SWEEP_INTERVAL_MS = 60_000;

/** One live claim of a group. */
export interface Claim {
  series: string;
  n: number;
  expiresAt: Date;
  /** What the claimer stored with it (e.g. a lock's end). */
  data: Record<string, unknown>;
}

interface ClaimDocument {
  _id: string;
  group: string;
  series: string;
  n: number;
  expiresAt: Date;
  data: Record<string, unknown>;
}

/** A group or series name: non-empty (a programming error otherwise). */
function checkedName(value: string, what: string): string {
  if (value.length === 0) throw new Error(`claim ${what} must be non-empty.`);
  return value;
}

/**
 * A claim's `_id`: the parts escaped so that `|` only ever separates them. Names come from
 * outside (an address as the proxy header gave it, "1|1"); refusing such a name made a lockout
 * fail open, uncounted.
 */
function claimId(group: string, series: string, n: number): string {
  const part = (value: string) => value.replaceAll("%", "%25").replaceAll("|", "%7C");
  return `${part(group)}|${part(series)}|${n}`;
}

const isDuplicateKey = (error: unknown) =>
  (error as { code?: unknown } | null)?.code === DUPLICATE_KEY;

const stores = new WeakMap<Connection, ClaimStore>();

/** Claims on one connection's `terreno_claims` collection. */
export class ClaimStore {
  /** The store of `connection` (one per connection, so indexes are built once). */
  static on(connection: Connection): ClaimStore {
    let store = stores.get(connection);
    if (!store) {
      store = new ClaimStore(connection);
      stores.set(connection, store);
    }
    return store;
  }

  private indexes?: Promise<void>;
  private lastSweep = 0;

  private constructor(private readonly connection: Connection) {}

  private collection() {
    return this.connection.collection<ClaimDocument>(CLAIM_COLLECTION);
  }

  /**
   * Builds the indexes once: by group, and TTL on `expiresAt` where the server has TTL indexes
   * (plain on FerretDB 1.x). Claims are exact without them (they rest on `_id`), so a failed
   * build only costs speed and is not retried.
   */
  private ready(): Promise<void> {
    this.indexes ??= (async () => {
      const collection = this.collection();
      try {
        await collection.createIndex({ group: 1 });
        await collection
          .createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 })
          .catch(async (error: unknown) => {
            if ((error as { code?: unknown }).code !== NOT_IMPLEMENTED) throw error;
            await collection.createIndex({ expiresAt: 1 });
          });
      } catch {
        // Reads and claims still work, by a collection scan.
      }
    })();
    return this.indexes;
  }

  /** The group's live claims, by series then n; expired ones are deleted first. */
  async claims(group: string): Promise<Claim[]> {
    checkedName(group, "group");
    await this.ready();
    const docs = await this.collection().find({ group }).toArray();
    const now = Date.now();
    await this.sweep(now);
    if (docs.some((doc) => doc.expiresAt.getTime() <= now)) {
      // Deleted before anyone claims again, so an expired `_id` never blocks its slot.
      await this.collection().deleteMany({ group, expiresAt: { $lte: new Date(now) } });
    }
    return docs
      .filter((doc) => doc.expiresAt.getTime() > now)
      .map(({ series, n, expiresAt, data }) => ({ series, n, expiresAt, data: data ?? {} }))
      .sort((a, b) => (a.series === b.series ? a.n - b.n : a.series < b.series ? -1 : 1));
  }

  /**
   * Claims slot `n` of `series` in `group`: true when this caller inserted it, false when it was
   * already claimed (by anyone, on any connection or instance). The one atomic step.
   */
  async claimAt(
    group: string,
    series: string,
    n: number,
    expiresAt: Date,
    data: Record<string, unknown> = {},
  ): Promise<boolean> {
    const _id = claimId(checkedName(group, "group"), checkedName(series, "series"), n);
    try {
      await this.collection().insertOne({ _id, group, series, n, expiresAt, data });
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  /**
   * Claims the lowest free slot of `series` up to `limit` and returns its number (1…limit), or
   * undefined when all `limit` are claimed. `taken` is the slots a read of `claims()` found: the
   * first guess, never the answer; a slot someone else claimed since is skipped by its
   * duplicate key. So the number returned counts this claim and every one before it.
   */
  async claimNext(
    group: string,
    series: string,
    limit: number,
    expiresAt: Date,
    taken: readonly number[],
  ): Promise<number | undefined> {
    const known = new Set(taken);
    for (let n = 1; n <= limit; n++) {
      if (known.has(n)) continue;
      if (await this.claimAt(group, series, n, expiresAt)) return n;
    }
    return undefined;
  }

  /**
   * Deletes every expired claim, at most once per SWEEP_INTERVAL_MS. Waited for: FerretDB deletes
   * the documents a filter matched by `_id` without matching them again, so a sweep still running
   * when this process claimed a freed slot again deleted the new claim (the settle-and-release
   * test lost its second claimer's claim that way). Across processes that window remains on
   * FerretDB; MongoDB has none.
   */
  private async sweep(now: number): Promise<void> {
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    await this.collection()
      .deleteMany({ expiresAt: { $lte: new Date(now) } })
      .catch(() => {
        // Expired claims are ignored when read; the next sweep tries again.
      });
  }

  /**
   * Gives slot `n` of `series` back (a refund: the attempt it counted was not made). With
   * `owner`, only while the claim still holds `data.owner === owner`: a claimer whose claim
   * expired and was claimed again never deletes its successor's.
   */
  async release(group: string, series: string, n: number, owner?: string): Promise<void> {
    await this.collection().deleteOne({
      _id: claimId(group, series, n),
      ...(owner === undefined ? {} : { "data.owner": owner }),
    });
  }

  /**
   * Replaces what claim `n` of `series` holds, and when it expires, while it still holds
   * `data.owner === owner` (its claimer's token; `data` must carry it on): e.g. an idempotency
   * key's answer once its request ran. Only the claimer writes its claim, so this update has no
   * rival writer to lose to (FerretDB's isolation gap is about concurrent updates).
   */
  async settle(
    group: string,
    series: string,
    n: number,
    owner: string,
    expiresAt: Date,
    data: Record<string, unknown>,
  ): Promise<void> {
    await this.collection().updateOne(
      { _id: claimId(group, series, n), "data.owner": owner },
      { $set: { expiresAt, data } },
    );
  }

  /**
   * Deletes every expired claim, at most once a minute per process, for users that claim
   * without reading their groups (idempotency keys): what keeps FerretDB, which has no TTL
   * indexes, from keeping them.
   */
  async sweepExpired(): Promise<void> {
    await this.ready();
    await this.sweep(Date.now());
  }

  /** Forgets every claim of `group`. */
  async clear(group: string): Promise<void> {
    await this.collection().deleteMany({ group: checkedName(group, "group") });
  }
}
