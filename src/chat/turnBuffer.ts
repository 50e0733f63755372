/**
 * The buffer of a streaming turn, whichever store holds it (MongoDB by default, turnBufferMongo.ts;
 * Redis when configured, turnBufferRedis.ts): the instance running the turn appends its UI message
 * chunks in batches; any instance replays them, from the first, and follows new ones by polling
 * until the turn's end marker. The store only appends and reads rows; batching, ordering, replay
 * and liveness live here once, for both.
 */
import type { UIMessageChunk } from "ai";
import type { Logger } from "../core/logger.js";

/** How long chunks wait to be written together. */
const FLUSH_MS = 100;
/** How often a reader looks for new chunks. */
const POLL_MS = 150;
/** Rows a reader asks for at once. */
const READ_LIMIT = 500;
/**
 * A reader gives up on a turn that wrote nothing for this long (its instance died). Stores keep
 * rows for at least ten times this (MongoDB deletes older ones; Redis keys expire).
 */
export const STALE_MS = 60_000;

/** One row of a turn's buffer: a chunk (as JSON text) or the end marker, numbered from 0. */
export interface BufferedRow {
  seq: number;
  /** When it was written, in ms since the epoch. */
  at: number;
  chunkJson?: string;
  end?: true;
}

/**
 * Which turn's buffer: its stream id under its conversation's owner. A stream id alone is not
 * enough (issue 33.8): a conversation of another user that pointed at it would read the reply.
 */
export interface TurnKey {
  ownerId: string;
  streamId: string;
}

/** Where turn buffers live: a store appends rows and reads them back in `seq` order. */
export interface TurnBufferStore {
  /** Appends `rows` (consecutive `seq`) after those appended before, in one write. */
  append(conversationId: string, turn: TurnKey, rows: BufferedRow[]): Promise<void>;
  /** Up to `limit` rows with `seq >= from`, by `seq`. */
  read(turn: TurnKey, from: number, limit: number): Promise<BufferedRow[]>;
  /** The turn's last row, or undefined when none was written (or it expired). */
  last(turn: TurnKey): Promise<BufferedRow | undefined>;
  /** The turn `turn` ended: drop what no reader can want any more (its own rows stay). */
  ended(conversationId: string, turn: TurnKey): Promise<void>;
}

/**
 * Appends one turn's chunks, in order, in batches; `end()` writes the end marker. A failed write
 * ends the recording: later rows would follow a gap no reader can pass, so they are not written
 * (the turn itself goes on, and is stored in MongoDB as always).
 */
export class TurnRecorder {
  private pending: BufferedRow[] = [];
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private broken = false;

  constructor(
    private readonly store: TurnBufferStore,
    private readonly conversationId: string,
    private readonly turn: TurnKey,
    private readonly logger: Logger,
  ) {}

  append(chunk: UIMessageChunk): void {
    if (this.broken) return;
    this.pending.push(this.row({ chunkJson: JSON.stringify(chunk) }));
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Writes what is left and the end marker; resolves once they are stored (or failed). */
  async end(): Promise<void> {
    if (!this.broken) this.pending.push(this.row({ end: true }));
    await this.flush();
  }

  private row(fields: Pick<BufferedRow, "chunkJson" | "end">): BufferedRow {
    const row = { seq: this.seq, at: Date.now(), ...fields };
    this.seq += 1;
    return row;
  }

  private flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const rows = this.pending.splice(0);
    if (rows.length === 0) return this.writing;
    // One write at a time, in order: a reader never sees a gap in `seq`.
    this.writing = this.writing.then(async () => {
      if (this.broken) return;
      try {
        await this.store.append(this.conversationId, this.turn, rows);
      } catch (error) {
        this.broken = true;
        this.pending = [];
        this.logger.error(
          { err: error, streamId: this.turn.streamId },
          "chat: could not buffer a turn's chunks; a reattach to this turn stops here (the turn goes on and is stored)",
        );
      }
    });
    return this.writing;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The turn from its first chunk, then its new chunks as they are written, until its
 * end marker (or nothing new for STALE_MS: the instance running it is gone). When the store
 * fails mid-replay, the reader gets an `error` chunk saying so rather than a cut connection.
 */
export function replayTurn(store: TurnBufferStore, turn: TurnKey): ReadableStream<UIMessageChunk> {
  let next = 0;
  let lastSeen = Date.now();
  let cancelled = false;
  return new ReadableStream<UIMessageChunk>({
    async pull(controller) {
      while (!cancelled) {
        let rows: BufferedRow[];
        try {
          rows = await store.read(turn, next, READ_LIMIT);
        } catch {
          controller.enqueue({
            type: "error",
            errorText:
              "The reply's stream buffer is unreachable; the reply is stored, reload the conversation to see it.",
          });
          controller.close();
          return;
        }
        let delivered = false;
        for (const row of rows) {
          if (row.seq !== next) break;
          next += 1;
          if (row.end) {
            controller.close();
            return;
          }
          controller.enqueue(JSON.parse(String(row.chunkJson)) as UIMessageChunk);
          delivered = true;
        }
        if (delivered) {
          lastSeen = Date.now();
          return;
        }
        if (Date.now() - lastSeen > STALE_MS) {
          controller.close();
          return;
        }
        await sleep(POLL_MS);
      }
    },
    cancel() {
      cancelled = true;
    },
  });
}

/**
 * Whether the turn's buffer shows it alive: written to within STALE_MS and not ended. With
 * nothing written yet, `started` says whether the turn has begun (its first rows are on their
 * way) or the buffer is simply not this caller's.
 */
export async function isTurnLive(
  store: TurnBufferStore,
  turn: TurnKey,
  started: () => Promise<boolean>,
): Promise<boolean> {
  const last = await store.last(turn);
  if (!last) return started();
  if (last.end) return false;
  return Date.now() - last.at < STALE_MS;
}
