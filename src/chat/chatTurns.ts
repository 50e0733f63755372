/**
 * Durable turns: an assistant turn is stored before the model streams and saved again as its
 * parts arrive; its chunks go to a buffer in MongoDB or Redis (turnBuffer.ts), so that a reload,
 * served by any instance, reattaches to the reply (`GET /chat/:id/stream`, the AI SDK's
 * `resume`). The turn runs on when its client goes away; only a Stop (`DELETE /chat/:id/stream`,
 * or the next message) ends it early, and it is stored as `stopped`.
 *
 * A turn is its conversation's owner's: its buffer is read, and a running turn is stopped, by
 * owner and stream id together (TurnKey), so another user's conversation that pointed at the
 * same stream id reaches neither (issue 33.8).
 */
import { randomUUID } from "node:crypto";
import {
  pipeUIMessageStreamToResponse,
  readUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
} from "ai";
import type { Response } from "express";
import mongoose from "mongoose";
import { defineErrorCode, notFound, TerrenoError } from "../core/errors.js";
import type { Logger } from "../core/logger.js";
import type { PlainObject, User } from "../core/types.js";
import type { ChatRequest } from "./chatAuth.js";
import { saveMessage, type TurnStatus } from "./chatStore.js";
import { ChatMessage, Conversation } from "./models.js";
import {
  isTurnLive,
  replayTurn,
  type TurnBufferStore,
  type TurnKey,
  TurnRecorder,
} from "./turnBuffer.js";

/** How often a streaming turn's parts are saved (not per token). */
const SAVE_MS = 300;
/** How often the instance running a turn looks for a Stop sent to another instance. */
const STOP_POLL_MS = 250;

/** `GET /chat/:id/stream` when the turn's buffer cannot be read (Redis down, say). */
const STREAM_BUFFER_UNAVAILABLE = defineErrorCode("stream_buffer_unavailable", {
  status: 503,
  title: "Stream Buffer Unavailable",
});

/**
 * One plugin's turns. Each chatPlugin has its own (as each server process would): a Stop that
 * arrives at the plugin running the turn aborts it at once; any other finds it through MongoDB.
 */
export class ChatTurns {
  /** Turns this plugin runs, by runKey (owner and stream id). */
  private readonly running = new Map<string, AbortController>();

  /** `buffer`: where the turns' chunks go, chosen by `chatPlugin({streamBuffer})`. */
  constructor(private readonly buffer: TurnBufferStore) {}

  /**
   * `GET /chat/:id/stream` (what `useChat({resume: true})` asks on load): 204 when no turn of
   * the conversation is streaming, else the turn from its first chunk (the SDK replaces the
   * message it has with the replay) and the rest as it comes; 503 when the buffer is unreachable
   * (the reply is still stored: the page shows the stored messages).
   */
  readonly resumeHandler = async (req: ChatRequest, res: Response): Promise<void> => {
    const user = req.user as User;
    const conversation = await chatConversation(user, String(req.params.id));
    const streamId = conversation?.activeStreamId;
    const turn =
      conversation && typeof streamId === "string" ? turnOf(conversation, streamId) : undefined;
    if (!conversation || !turn || !(await this.isLive(conversation, turn))) {
      res.status(204).end();
      return;
    }
    void pipeUIMessageStreamToResponse({
      response: res,
      stream: replayTurn(this.buffer, turn),
      headers: { "X-Conversation-Id": String(conversation?._id) },
    });
  };

  private async isLive(conversation: PlainObject, turn: TurnKey): Promise<boolean> {
    // begin() stores the assistant message as `streaming` before it points the conversation at
    // the turn: without one, nothing of this owner's is running here.
    const started = async () =>
      Boolean(await ChatMessage.exists({ conversationId: conversation._id, status: "streaming" }));
    try {
      return await isTurnLive(this.buffer, turn, started);
    } catch (error) {
      throw new TerrenoError(
        STREAM_BUFFER_UNAVAILABLE,
        "The reply's stream buffer is unreachable, so it cannot be followed now; the reply is " +
          "stored: GET /chat/conversations/:id/messages has it as far as it got.",
        undefined,
        { cause: error, headers: { "Retry-After": "5" } },
      );
    }
  }
  /** `DELETE /chat/:id/stream`. */
  readonly stopHandler = async (req: ChatRequest, res: Response): Promise<void> => {
    const user = req.user as User;
    const conversation = await chatConversation(user, String(req.params.id));
    if (!conversation) throw notFound("No such conversation.");
    await this.stopActive(conversation);
    res.status(204).end();
  };

  /**
   * Ends the conversation's running turn, if any, on whichever instance runs it: the stop is
   * recorded on the conversation (which that instance polls) and signalled here directly, to the
   * turn of this conversation's owner only.
   */
  private async stopActive(conversation: PlainObject): Promise<void> {
    const active = conversation.activeStreamId;
    if (typeof active !== "string") return;
    await Conversation.updateOne(
      { _id: conversation._id, activeStreamId: active },
      { $set: { stopStreamId: active } },
    );
    this.running.get(runKey(turnOf(conversation, active)))?.abort();
  }

  /**
   * Stores the turn before the model runs: the assistant message (`start`: empty, or the message
   * an approval continues) as `streaming`, and the conversation's pointer to its stream. A turn
   * still running in the conversation is stopped first. The turn is keyed by the conversation's
   * owner.
   */
  async begin(user: User, conversationId: string, start: UIMessage): Promise<TurnKey> {
    const conversation = await Conversation.findById(conversationId).lean<PlainObject>();
    if (!conversation) throw notFound("No such conversation.");
    await this.stopActive(conversation);
    const streamId = randomUUID();
    await saveMessage(user, conversationId, start, "streaming");
    await Conversation.updateOne(
      { _id: conversationId },
      { $set: { activeStreamId: streamId }, $unset: { stopStreamId: 1 } },
    );
    return turnOf(conversation, streamId);
  }

  /**
   * Follows a turn to its end: buffers each chunk, saves the message as it grows (every SAVE_MS),
   * then stores it with its final status, writes the buffer's end marker, deletes older buffers
   * and, last, clears the conversation's pointer.
   */
  async record(options: RecordTurnOptions): Promise<void> {
    const { user, conversationId, turn, abort, logger } = options;
    const { streamId } = turn;
    const recorder = new TurnRecorder(this.buffer, conversationId, turn, logger);
    this.running.set(runKey(turn), abort);
    const watch = setInterval(() => {
      Conversation.exists({ _id: conversationId, stopStreamId: streamId }).then(
        (stopped) => {
          if (stopped) abort.abort();
        },
        () => {},
      );
    }, STOP_POLL_MS);

    let status: TurnStatus = "done";
    const observed = options.stream.pipeThrough(
      new TransformStream<UIMessageChunk, UIMessageChunk>({
        transform(chunk, controller) {
          if (chunk.type === "abort") status = "stopped";
          else if (chunk.type === "error" && status === "done") status = "failed";
          recorder.append(chunk);
          controller.enqueue(chunk);
        },
      }),
    );
    let saving: Promise<void> = Promise.resolve();
    const save = (message: UIMessage, state: TurnStatus) => {
      saving = saving
        .then(() => saveMessage(user, conversationId, message, state))
        .catch((error: unknown) => {
          logger.error({ err: error }, "chat: could not store the assistant message");
        });
      return saving;
    };
    // readUIMessageStream continues the message it is given in place: hand it a copy.
    let latest: UIMessage = structuredClone(options.start);
    let savedAt = Date.now();
    // At most one save per SAVE_MS, and the last growth is saved SAVE_MS later even when the
    // model then pauses (a slow tool, a long think): a reader reattaching sees it.
    let pending: ReturnType<typeof setTimeout> | undefined;
    const saveSoon = () => {
      if (pending) return;
      pending = setTimeout(
        () => {
          pending = undefined;
          savedAt = Date.now();
          void save(structuredClone(latest), "streaming");
        },
        Math.max(0, SAVE_MS - (Date.now() - savedAt)),
      );
    };
    try {
      for await (const message of readUIMessageStream({ message: latest, stream: observed })) {
        latest = message;
        saveSoon();
      }
    } catch (error) {
      if (status === "done") status = "failed";
      logger.error({ err: error }, "chat: a turn's stream failed");
    } finally {
      clearInterval(watch);
      clearTimeout(pending);
      this.running.delete(runKey(turn));
    }
    if (abort.signal.aborted && status === "done") status = "stopped";
    await save(latest, status);
    await recorder.end();
    try {
      await this.buffer.ended(conversationId, turn);
      // Last: a conversation with no `activeStreamId` has every turn stored and closed.
      await Conversation.updateOne(
        { _id: conversationId, activeStreamId: streamId },
        { $unset: { activeStreamId: 1, stopStreamId: 1 } },
      );
    } catch (error) {
      logger.error({ err: error }, "chat: could not close a turn");
    }
  }
}

export interface RecordTurnOptions {
  /** The turn's UI message chunks (a branch of what the client gets). */
  stream: ReadableStream<UIMessageChunk>;
  user: User;
  conversationId: string;
  /** What begin() returned: the turn's stream under the conversation's owner. */
  turn: TurnKey;
  start: UIMessage;
  /** Aborts the model: a Stop from any instance triggers it. */
  abort: AbortController;
  logger: Logger;
}

/** The turn `streamId` of `conversation`, under the conversation's owner. */
function turnOf(conversation: PlainObject, streamId: string): TurnKey {
  return { ownerId: String(conversation.ownerId), streamId };
}

const runKey = ({ ownerId, streamId }: TurnKey) => `${ownerId}:${streamId}`;

/**
 * The caller's conversation that a useChat id names: the conversation's id (a reloaded page uses
 * it as the chat id) or the useChat id it was started from.
 */
async function chatConversation(user: User, chatId: string): Promise<PlainObject | null> {
  const byId = mongoose.isValidObjectId(chatId) ? [{ _id: chatId }] : [];
  return Conversation.findOne({
    ownerId: user.id,
    $or: [...byId, { clientId: chatId }],
  }).lean<PlainObject>();
}
