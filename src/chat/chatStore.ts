/**
 * Where a chat's conversation and messages live in MongoDB: which Conversation a `POST /chat`
 * belongs to, and storing each message (the user's before the model runs, the assistant's when
 * its stream ends).
 */
import { randomUUID } from "node:crypto";
import type { UIMessage } from "ai";
import { notFound } from "../core/errors.js";
import { read, runOperation } from "../core/index.js";
import type { PlainObject, User } from "../core/types.js";
import { chatContext, conversationResource } from "./chatAccess.js";
import type { ChatBody } from "./chatBody.js";
import { ChatMessage, Conversation } from "./models.js";
import { encodeParts } from "./storedParts.js";

/**
 * The conversation `id` as the caller may read it: the core's read under the conversations'
 * permissions (chatAccess.ts: its owner, or an admin). Anything else, including an id that is not
 * an ObjectId, is the same 404, so that a caller cannot tell others' ids exist.
 */
export async function findOwnedConversation(
  user: User,
  id: string,
  operation: string,
): Promise<PlainObject> {
  const ctx = chatContext(user, operation);
  return (await runOperation(() => read(conversationResource, ctx, { id }))) as PlainObject;
}

/** A new conversation's title: the start of the first user message's text. */
function titleFrom(message: UIMessage | undefined): string {
  const text = (message?.parts ?? [])
    .map((part) => (part.type === "text" ? part.text : ""))
    .join(" ")
    .trim();
  if (!text) return "New conversation";
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** A stored conversation a request continues: its id, and the workspace it was started in. */
export interface ContinuedConversation {
  id: string;
  workspaceId?: string;
}

function continued(doc: PlainObject): ContinuedConversation {
  const workspaceId = doc.workspaceId;
  return {
    id: String(doc.id ?? doc._id),
    ...(typeof workspaceId === "string" && workspaceId ? { workspaceId } : {}),
  };
}

/**
 * The stored conversation a request continues, without creating one: `conversationId` (the
 * sender's own, else 404), else the one started from the useChat `id` (plain useChat never sends
 * `conversationId`), else none. Only its owner continues a conversation: an admin may read
 * anyone's, but a turn's messages and tool calls are the sender's.
 */
export async function findConversation(
  user: User,
  body: ChatBody,
): Promise<ContinuedConversation | undefined> {
  if (body.conversationId) {
    const found = await findOwnedConversation(user, body.conversationId, "POST /chat");
    if (String(found.ownerId) !== user.id) throw notFound();
    return continued(found);
  }
  if (!body.id) return undefined;
  const found = await Conversation.findOne({
    ownerId: user.id,
    clientId: body.id,
  }).lean<PlainObject>();
  return found ? continued(found) : undefined;
}

/**
 * A new conversation for a request that continues none, titled after its first user message,
 * kept in `workspaceId` (the workspace the request acts in, when it has one).
 */
export async function createConversation(
  user: User,
  body: ChatBody,
  workspaceId: string | undefined,
): Promise<string> {
  const created = await Conversation.create({
    ownerId: user.id,
    title: titleFrom(body.messages.find((m) => m.role === "user")),
    ...(body.id ? { clientId: body.id } : {}),
    ...(workspaceId ? { workspaceId } : {}),
  });
  return String(created._id);
}

/** The state of an assistant turn, as the ChatMessage row keeps it. */
export type TurnStatus = "streaming" | "done" | "stopped" | "failed";

/**
 * Stores a message, or replaces its parts when it is stored already: useChat resends the
 * assistant message after an approval, with the tool results added, and a streaming turn is
 * saved again as its parts arrive (with its `status`).
 */
export async function saveMessage(
  user: User,
  conversationId: string,
  message: UIMessage,
  status?: TurnStatus,
): Promise<void> {
  const messageId = message.id || randomUUID();
  const filter = { conversationId, ownerId: user.id, messageId };
  const partsJson = encodeParts(message.parts);
  const existing = await ChatMessage.findOne(filter).lean<PlainObject>();
  if (existing) {
    await ChatMessage.updateOne(
      { _id: existing._id },
      { $set: { partsJson, ...(status ? { status } : {}) }, $unset: { parts: 1 } },
    );
  } else {
    await ChatMessage.create({
      ...filter,
      role: message.role,
      partsJson,
      ...(status ? { status } : {}),
    });
  }
  // The conversations list is sorted by `-updatedAt`: the latest chat first.
  await Conversation.updateOne({ _id: conversationId }, { $set: { updatedAt: new Date() } });
}
