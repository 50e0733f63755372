/**
 * Where rate-limit counters live: process memory, the app's MongoDB (so every instance of the
 * app shares one limit), or a Redis client the app passes in. Counting, expiry and blocking are
 * rate-limiter-flexible's; this file only builds its limiters for the chosen store.
 *
 * MongoDB: counters are documents `{key, points, expire}` in `terreno_rate_limits`. The
 * limiter's own index creation is off because FerretDB 1.x has no TTL indexes and the limiter
 * would then skip the unique `key` index too; this file creates the unique index itself (which
 * keeps one document per key, reused after it expires) and the TTL index where the server has
 * it. Until the indexes exist, and whenever the store fails, each limiter falls back to an
 * in-memory limiter of the same shape (rate-limiter-flexible's `insuranceLimiter`).
 */
import mongoose, { type Connection } from "mongoose";
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterMongo,
  RateLimiterRedis,
} from "rate-limiter-flexible";
import type { Logger } from "../core/logger.js";

export const RATE_LIMIT_COLLECTION = "terreno_rate_limits";

/**
 * A Redis client rate-limiter-flexible accepts: `ioredis` (default) or `redis` v4+ (set
 * `useRedisPackage: true`). Typed loosely on purpose: terreno-mcp does not depend on either.
 */
export type RedisClientLike = object;

export type RateLimitStore =
  /** Counters in this process only (the default). Every instance counts on its own. */
  | "memory"
  /** Counters on the app's connection (its models' `db`), shared by all instances. */
  | "mongo"
  /** Counters on another Mongoose connection (e.g. one with `maxPoolSize: 1`, see docs/rate-limits-and-audit.md). */
  | { mongo: Connection }
  | { redis: RedisClientLike; useRedisPackage?: boolean };

/** One limiter's shape: `points` per `duration` seconds, keys prefixed with `keyPrefix`. */
interface LimiterSpec {
  keyPrefix: string;
  points: number;
  duration: number;
}

export interface LimiterFactory {
  (spec: LimiterSpec): RateLimiterAbstract;
  /** Resolves once the store is usable (MongoDB: connected and indexed); never rejects. */
  ready(): Promise<void>;
}

const memoryFactory: LimiterFactory = Object.assign(memoryLimiterOf, {
  ready: () => Promise.resolve(),
});

function memoryLimiterOf(spec: LimiterSpec): RateLimiterAbstract {
  return memoryLimiter(spec);
}

function memoryLimiter(spec: LimiterSpec): RateLimiterMemory {
  return new RateLimiterMemory({ ...spec });
}

const NOT_IMPLEMENTED = 238;

function openConnection(connection: Connection): Promise<void> {
  if (connection.readyState === 1) return Promise.resolve();
  return new Promise((resolve) => connection.once("open", () => resolve()));
}

/**
 * FerretDB 1.x applies concurrent updates of one document made over different connections
 * without isolation, so counters on a pooled connection let bursts through the limit (45 at once
 * through 30). Said once per connection, with the fix: a connection with `maxPoolSize: 1`.
 */
async function warnIfPooledFerretDB(connection: Connection, logger: Logger): Promise<void> {
  try {
    const info = await connection.db?.admin().command({ buildInfo: 1 });
    const maxPoolSize = connection.getClient().options.maxPoolSize;
    if (typeof info?.ferretdbVersion !== "string" || maxPoolSize === 1) return;
    logger.warn(
      { collection: RATE_LIMIT_COLLECTION, ferretdbVersion: info.ferretdbVersion, maxPoolSize },
      "terreno-mcp: rate-limit counters are on FerretDB over a pooled connection, where concurrent updates are not isolated and bursts can pass the limits; give the store a connection with maxPoolSize: 1 (docs/rate-limits-and-audit.md, FerretDB 1.x)",
    );
  } catch {
    // Only a warning: a server that will not say what it is gets none.
  }
}

/** Per connection: resolves (never rejects) with the connection once its indexes were attempted. */
const prepared = new WeakMap<Connection, Promise<Connection>>();
/** Connections whose preparation is done: their limiters take the connection itself. */
const preparedDone = new WeakSet<Connection>();

function prepareCollection(connection: Connection, logger: Logger): Promise<Connection> {
  const existing = prepared.get(connection);
  if (existing) return existing;
  const ready = (async () => {
    await openConnection(connection);
    const collection = connection.collection(RATE_LIMIT_COLLECTION);
    try {
      await collection.createIndex({ key: 1 }, { unique: true });
    } catch (error) {
      // Without it, an expired counter is not replaced in place and concurrent first hits may
      // store a key twice: counting still works, less exactly.
      logger.warn(
        { err: error, collection: RATE_LIMIT_COLLECTION },
        "terreno-mcp: could not create the unique rate-limit key index",
      );
    }
    try {
      await collection.createIndex({ expire: 1 }, { expireAfterSeconds: 0 });
    } catch (error) {
      if ((error as { code?: unknown }).code === NOT_IMPLEMENTED) {
        // FerretDB 1.x: no TTL indexes. Each key keeps one document, reused once it expires.
        logger.info(
          { collection: RATE_LIMIT_COLLECTION },
          "terreno-mcp: this database has no TTL indexes (FerretDB 1.x); expired rate-limit counters are reused per key, not deleted",
        );
      } else {
        logger.warn(
          { err: error, collection: RATE_LIMIT_COLLECTION },
          "terreno-mcp: could not create the rate-limit TTL index; expired counters are not deleted",
        );
      }
    }
    await warnIfPooledFerretDB(connection, logger);
    preparedDone.add(connection);
    return connection;
  })();
  prepared.set(connection, ready);
  return ready;
}

/**
 * Builds limiters on the given store. Store limiters count in memory (per process) while the
 * store is unreachable or not ready yet, so a database outage never turns into 500s or into
 * no limit at all.
 */
export function limiterFactory(
  store: RateLimitStore = "memory",
  logger: Logger,
  /** The app's connection, for `"mongo"`; asked when a limiter is made, not before. */
  appConnection: () => Connection = () => mongoose.connection,
): LimiterFactory {
  if (store === "memory") return memoryFactory;
  if (store === "mongo" || "mongo" in store) {
    const connectionOf = () => (store === "mongo" ? appConnection() : store.mongo);
    const make = (spec: LimiterSpec) => {
      const connection = connectionOf();
      // Before the store is ready, a promise as the client: rate-limiter-flexible uses it once it
      // resolves (until then its calls fail over to the insurance limiter); it never rejects.
      // After, the connection itself, so a limiter made later counts in the store at once.
      const client = preparedDone.has(connection)
        ? connection
        : prepareCollection(connection, logger);
      return new RateLimiterMongo({
        ...spec,
        storeClient: client,
        tableName: RATE_LIMIT_COLLECTION,
        disableIndexesCreation: true,
        insuranceLimiter: memoryLimiter(spec),
      });
    };
    return Object.assign(make, {
      ready: () => prepareCollection(connectionOf(), logger).then(() => undefined),
    });
  }
  if ("redis" in store) {
    const make = (spec: LimiterSpec) =>
      new RateLimiterRedis({
        ...spec,
        storeClient: store.redis,
        useRedisPackage: store.useRedisPackage ?? false,
        insuranceLimiter: memoryLimiter(spec),
      });
    return Object.assign(make, { ready: () => Promise.resolve() });
  }
  throw new Error('rateLimit.store must be "memory", "mongo", {mongo: connection} or {redis}.');
}
