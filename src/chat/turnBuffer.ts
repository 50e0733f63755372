/**
 * The buffer of a streaming turn in MongoDB (`chat_stream_chunks`): the instance running the turn
 * appends its UI message chunks in batches; any instance replays them, from the first, and
 * follows new ones by polling (FerretDB has no change streams) until the turn's end marker.
 */
import type { UIMessageChunk } from "ai";
import type { Logger } from "../core/logger.js";
import type { PlainObject } from "../core/types.js";
import { ChatStreamChunk } from "./models.js";

/** How long chunks wait to be written together. */
const FLUSH_MS = 100;
/** How often a reader looks for new chunks. */
const POLL_MS = 150;
/**
 * A reader gives up on a turn that wrote nothing for this long (its instance died), and rows
 * older than this times 10 are deleted when a turn ends: the TTL FerretDB cannot keep.
 */
const STALE_MS = 60_000;

/** Appends one turn's chunks, in order, in batches; `end()` writes the end marker. */
export class TurnRecorder {
  private pending: PlainObject[] = [];
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly conversationId: string,
    private readonly streamId: string,
    private readonly logger: Logger,
  ) {}

  append(chunk: UIMessageChunk): void {
    this.pending.push(this.row({ chunkJson: JSON.stringify(chunk) }));
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Writes what is left and the end marker; resolves once they are stored. */
  async end(): Promise<void> {
    this.pending.push(this.row({ end: true }));
    await this.flush();
  }

  private row(fields: PlainObject): PlainObject {
    const row = { conversationId: this.conversationId, streamId: this.streamId, seq: this.seq };
    this.seq += 1;
    return { ...row, ...fields, createdAt: new Date() };
  }

  private flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const rows = this.pending.splice(0);
    if (rows.length === 0) return this.writing;
    // One write at a time, in order: a reader never sees a gap in `seq`.
    this.writing = this.writing
      .then(async () => {
        await ChatStreamChunk.insertMany(rows, { ordered: true });
      })
      .catch((error: unknown) => {
        this.logger.error({ err: error }, "chat: could not buffer a turn's chunks");
      });
    return this.writing;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The turn `streamId` from its first chunk, then its new chunks as they are written, until its
 * end marker (or nothing new for STALE_MS: the instance running it is gone).
 */
export function replayTurn(streamId: string): ReadableStream<UIMessageChunk> {
  let next = 0;
  let lastSeen = Date.now();
  let cancelled = false;
  return new ReadableStream<UIMessageChunk>({
    async pull(controller) {
      while (!cancelled) {
        const rows = await ChatStreamChunk.find({ streamId, seq: { $gte: next } })
          .sort({ seq: 1 })
          .limit(500)
          .lean<PlainObject[]>();
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

/** Whether the turn's buffer shows it alive: written to within STALE_MS and not ended. */
export async function isTurnLive(streamId: string): Promise<boolean> {
  const last = await ChatStreamChunk.findOne({ streamId }).sort({ seq: -1 }).lean<PlainObject>();
  if (!last) return true; // Started, nothing written yet.
  if (last.end) return false;
  return Date.now() - new Date(String(last.createdAt)).getTime() < STALE_MS;
}

/**
 * When a turn ends: the buffers of the conversation's earlier turns go (a reader of this one may
 * still be catching up), and so do any rows old enough that no reader can want them.
 */
export async function cleanUpBuffers(conversationId: string, keepStreamId: string): Promise<void> {
  await ChatStreamChunk.deleteMany({ conversationId, streamId: { $ne: keepStreamId } });
  await ChatStreamChunk.deleteMany({ createdAt: { $lt: new Date(Date.now() - STALE_MS * 10) } });
}
