/**
 * The chat plugin's collections: conversations and their messages (owner-only, served by
 * modelRouter), feedback on messages, one telemetry row per chat request, and the approvals the
 * server asked for (chatApprovals.ts: an approved call runs once however often it is approved),
 * and the buffer of a streaming turn (turnBuffer.ts).
 */
import mongoose, { Schema } from "mongoose";
import type { AnyModel } from "../core/types.js";

function model(name: string, schema: Schema, collection: string): AnyModel {
  const existing: AnyModel | undefined = mongoose.models[name];
  return existing ?? mongoose.model(name, schema, collection);
}

const conversationSchema = new Schema(
  {
    ownerId: { type: Schema.Types.ObjectId, ref: "User", required: true, index: true },
    title: { type: String, maxlength: 200, default: "New conversation" },
    /** The `id` useChat sends, when the conversation was started from one. */
    clientId: { type: String, maxlength: 200 },
    /**
     * The workspace the conversation was started in (an app with workspaces): every later turn
     * acts there (chatStream.ts), whatever workspace the client names then.
     */
    workspaceId: { type: String, maxlength: 200 },
    /** The turn streaming now (chatTurns.ts): a reload reattaches to it. Unset between turns. */
    activeStreamId: { type: String, maxlength: 200 },
    /** Set to `activeStreamId` by a Stop: the instance running that turn ends it. */
    stopStreamId: { type: String, maxlength: 200 },
  },
  { timestamps: true },
);
export const Conversation = model("Conversation", conversationSchema, "chat_conversations");

const chatMessageSchema = new Schema(
  {
    conversationId: {
      type: Schema.Types.ObjectId,
      ref: "Conversation",
      required: true,
      index: true,
    },
    ownerId: { type: Schema.Types.ObjectId, ref: "User", required: true },
    /** The UI message id (what useChat holds). */
    messageId: { type: String, required: true, maxlength: 200 },
    role: { type: String, enum: ["user", "assistant", "system"], required: true },
    /**
     * The parts as JSON text (storedParts.ts): `$` and dotted keys round-trip on any server.
     * A storage form, hidden from every view (`select: false`): routes serve the decoded parts.
     */
    partsJson: { type: String, select: false },
    /** Rows stored before `partsJson` hold the parts here; they are repaired when read. */
    parts: { type: Schema.Types.Mixed, select: false },
    /**
     * An assistant turn's state (chatTurns.ts): `streaming` while the model answers (its parts
     * are saved as they arrive), then `done`, `stopped` (the person pressed Stop) or `failed`.
     */
    status: { type: String, enum: ["streaming", "done", "stopped", "failed"] },
  },
  { timestamps: true },
);
export const ChatMessage = model("ChatMessage", chatMessageSchema, "chat_messages");

/**
 * The buffer of a streaming turn in MongoDB (turnBufferMongo.ts; Redis instead when configured):
 * its UI message chunks in order, so that a reload, on any instance, replays the reply so far and
 * follows the rest. The chunk is JSON text,
 * as the parts are. The last row of a finished turn is `end: true`. Rows are deleted when a later
 * turn of the conversation ends, and when old: FerretDB refuses TTL indexes, so the age is also
 * checked when read.
 */
const chatStreamChunkSchema = new Schema({
  conversationId: { type: String, required: true, maxlength: 200 },
  /** The conversation's owner: a row is read by owner and stream id, never by stream id alone. */
  ownerId: { type: String, required: true, maxlength: 200 },
  streamId: { type: String, required: true, maxlength: 200 },
  seq: { type: Number, required: true },
  chunkJson: { type: String },
  end: { type: Boolean },
  createdAt: { type: Date, default: () => new Date() },
});
chatStreamChunkSchema.index({ streamId: 1, seq: 1 }, { unique: true });
chatStreamChunkSchema.index({ conversationId: 1 });
chatStreamChunkSchema.index({ createdAt: 1 });
export const ChatStreamChunk = model(
  "ChatStreamChunk",
  chatStreamChunkSchema,
  "chat_stream_chunks",
);

const chatFeedbackSchema = new Schema(
  {
    ownerId: { type: Schema.Types.ObjectId, ref: "User", required: true },
    conversationId: { type: Schema.Types.ObjectId, ref: "Conversation" },
    messageId: { type: String, required: true, maxlength: 200 },
    rating: { type: String, enum: ["up", "down"], required: true },
    comment: { type: String, maxlength: 2000 },
  },
  { timestamps: true },
);
export const ChatFeedback = model("ChatFeedback", chatFeedbackSchema, "chat_feedback");

const chatTelemetrySchema = new Schema(
  {
    ownerId: { type: Schema.Types.ObjectId, ref: "User" },
    conversationId: { type: Schema.Types.ObjectId, ref: "Conversation" },
    modelId: String,
    inputTokens: Number,
    outputTokens: Number,
    steps: Number,
    toolCalls: [String],
    latencyMs: Number,
    success: Boolean,
    errorCode: String,
  },
  { timestamps: true },
);
export const ChatTelemetry = model("ChatTelemetry", chatTelemetrySchema, "chat_telemetry");

const chatToolApprovalSchema = new Schema(
  {
    ownerId: { type: Schema.Types.ObjectId, ref: "User", required: true },
    /** The Conversation id, or the useChat id when conversations are not stored. */
    conversationKey: { type: String, required: true, maxlength: 200 },
    /** Unique: a tool call id is asked about, answered and run at most once, ever. */
    toolCallId: { type: String, required: true, unique: true, maxlength: 200 },
    approvalId: { type: String, required: true, maxlength: 200 },
    toolName: { type: String, required: true, maxlength: 200 },
    /** SHA-256 of the input's canonical JSON (RFC 8785): the input the person is asked about. */
    inputHash: { type: String, required: true },
    /** The input as JSON text, for `GET /chat/approvals` (`$` and dotted keys included). */
    inputJson: { type: String },
    /** `dropped`: left unanswered when the conversation went on (chatApprovals.ts). */
    state: {
      type: String,
      enum: ["pending", "approved", "denied", "dropped"],
      default: "pending",
    },
    /** Set once, when the approved call runs. */
    ranAt: { type: Date },
    answeredAt: { type: Date },
  },
  { timestamps: true },
);
chatToolApprovalSchema.index({ ownerId: 1, state: 1, createdAt: 1 });
export const ChatToolApproval = model(
  "ChatToolApproval",
  chatToolApprovalSchema,
  "chat_tool_approvals",
);
