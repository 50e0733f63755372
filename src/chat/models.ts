/**
 * The chat plugin's collections: conversations and their messages (owner-only, served by
 * modelRouter), feedback on messages, one telemetry row per chat request, and the tool calls
 * already run (so an approved call runs once however often its approval is sent).
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
  },
  { timestamps: true },
);
export const ChatMessage = model("ChatMessage", chatMessageSchema, "chat_messages");

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

const chatToolRunSchema = new Schema(
  {
    /** `ownerId:conversationId:toolCallId`. */
    key: { type: String, required: true, unique: true },
    toolName: String,
  },
  { timestamps: true },
);
export const ChatToolRun = model("ChatToolRun", chatToolRunSchema, "chat_tool_runs");
