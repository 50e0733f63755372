/**
 * Turn buffers in MongoDB (the default): rows in `chat_stream_chunks`, one document per chunk,
 * each with its conversation's owner: rows are read by owner and stream id together.
 * FerretDB has no TTL indexes, so old rows are deleted when a turn ends, not by the server.
 */
import type { PlainObject } from "../core/types.js";
import { ChatStreamChunk } from "./models.js";
import { type BufferedRow, STALE_MS, type TurnBufferStore } from "./turnBuffer.js";

function rowOf(doc: PlainObject): BufferedRow {
  return {
    seq: Number(doc.seq),
    at: new Date(String(doc.createdAt)).getTime(),
    ...(typeof doc.chunkJson === "string" ? { chunkJson: doc.chunkJson } : {}),
    ...(doc.end ? { end: true as const } : {}),
  };
}

export const mongoTurnBuffer: TurnBufferStore = {
  async append(conversationId, { ownerId, streamId }, rows) {
    await ChatStreamChunk.insertMany(
      rows.map(({ at, ...row }) => ({
        ...row,
        conversationId,
        ownerId,
        streamId,
        createdAt: new Date(at),
      })),
      { ordered: true },
    );
  },
  async read({ ownerId, streamId }, from, limit) {
    const docs = await ChatStreamChunk.find({ ownerId, streamId, seq: { $gte: from } })
      .sort({ seq: 1 })
      .limit(limit)
      .lean<PlainObject[]>();
    return docs.map(rowOf);
  },
  async last({ ownerId, streamId }) {
    const doc = await ChatStreamChunk.findOne({ ownerId, streamId })
      .sort({ seq: -1 })
      .lean<PlainObject>();
    return doc ? rowOf(doc) : undefined;
  },
  /**
   * The buffers of the conversation's earlier turns go (a reader of this one may still be
   * catching up), and so do any rows old enough that no reader can want them.
   */
  async ended(conversationId, keep) {
    await ChatStreamChunk.deleteMany({ conversationId, streamId: { $ne: keep.streamId } });
    await ChatStreamChunk.deleteMany({ createdAt: { $lt: new Date(Date.now() - STALE_MS * 10) } });
  },
};
