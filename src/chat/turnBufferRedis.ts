/**
 * Turn buffers in Redis (`chatPlugin({streamBuffer: {redis: client}})`): one list per turn (its
 * key names the conversation's owner and the stream: `<keyPrefix><ownerId>:<streamId>`), the
 * row with `seq` n at index n (RPUSH appends a batch in one command, LRANGE reads from a `seq`),
 * each row as JSON. Every write sets the key's expiry again, so a buffer outlives its turn by
 * `ttlSeconds` and then Redis deletes it: no clean-up pass, unlike MongoDB on FerretDB.
 *
 * Polling LRANGE, not XREAD BLOCK on a stream: a blocking read holds its connection, and the
 * client here is the app's own, shared with everything else it does.
 */
import { type BufferedRow, STALE_MS, type TurnBufferStore, type TurnKey } from "./turnBuffer.js";

/**
 * The three commands the buffer sends, as an `ioredis` client (`new Redis(...)`) has them.
 * Typed by shape on purpose: terreno-mcp does not depend on a Redis package. For another client,
 * pass an object with these three methods.
 */
export interface RedisStreamBufferClient {
  rpush(key: string, ...elements: string[]): Promise<number>;
  lrange(key: string, start: number, stop: number): Promise<string[]>;
  pexpire(key: string, milliseconds: number): Promise<number>;
}

export interface RedisStreamBufferOptions {
  redis: RedisStreamBufferClient;
  /**
   * Prepended to `<ownerId>:<streamId>` (the conversation's owner, the turn's stream) to make a
   * turn's key. Default `terreno:chat:stream:`.
   */
  keyPrefix?: string;
  /**
   * How long a buffer is kept after its last write, in seconds. Default 600; at least 60 (a
   * reader waits that long for a silent turn before giving up on it).
   */
  ttlSeconds?: number;
  /**
   * How long one command may take, in ms, before the buffer treats Redis as unreachable (a
   * client with an offline queue would otherwise hold the call until Redis is back). Default 2000.
   */
  timeoutMs?: number;
}

/** Rejects when `promise` takes longer than `ms`; the timer never holds the process open. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Redis did not answer ${what} within ${ms} ms.`)),
      ms,
    );
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function positiveInteger(value: number, name: string, min: number): number {
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`chatPlugin: \`streamBuffer.${name}\` must be an integer of at least ${min}.`);
  }
  return value;
}

export function redisTurnBuffer(options: RedisStreamBufferOptions): TurnBufferStore {
  const client = options.redis;
  if (
    typeof client?.rpush !== "function" ||
    typeof client.lrange !== "function" ||
    typeof client.pexpire !== "function"
  ) {
    throw new Error(
      "chatPlugin: `streamBuffer.redis` must be a Redis client with rpush, lrange and pexpire (an ioredis client has them).",
    );
  }
  const prefix = options.keyPrefix ?? "terreno:chat:stream:";
  const ttlMs = positiveInteger(options.ttlSeconds ?? 600, "ttlSeconds", STALE_MS / 1000) * 1000;
  const timeoutMs = positiveInteger(options.timeoutMs ?? 2000, "timeoutMs", 1);
  const keyOf = ({ ownerId, streamId }: TurnKey) => `${prefix}${ownerId}:${streamId}`;
  const parse = (entries: string[]) => entries.map((entry) => JSON.parse(entry) as BufferedRow);

  return {
    async append(_conversationId, turn, rows) {
      const key = keyOf(turn);
      const values = rows.map((row) => JSON.stringify(row));
      await within(client.rpush(key, ...values), timeoutMs, "RPUSH");
      await within(client.pexpire(key, ttlMs), timeoutMs, "PEXPIRE");
    },
    async read(turn, from, limit) {
      return parse(
        await within(client.lrange(keyOf(turn), from, from + limit - 1), timeoutMs, "LRANGE"),
      );
    },
    async last(turn) {
      return parse(await within(client.lrange(keyOf(turn), -1, -1), timeoutMs, "LRANGE"))[0];
    },
    // Earlier turns' keys expire on their own.
    ended: () => Promise.resolve(),
  };
}
