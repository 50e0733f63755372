/**
 * Reopening a stored conversation (a reload, a click in the sidebar) as the person left it: its
 * messages, the thumbs they gave (`GET /chat/feedback`), and the calls an app view asked for that
 * the server still holds for their answer (`GET /chat/approvals`). A model's call that waits for
 * approval is in the messages already; a view's is only on the server, so without this list it
 * would be lost with the page.
 */
import type { UIMessage } from "ai";
import { apiJson } from "./api.js";
import type { Feedback, HeldApproval, Rating, StoredMessage } from "./types.js";

/** What the chat panel is opened with; a new `chatId` mounts a fresh chat. */
export interface OpenChat {
  chatId: string;
  conversationId: string | undefined;
  messages: UIMessage[];
  /** The person's rating of each assistant message, by UI message id. */
  ratings: ReadonlyMap<string, Rating>;
  /** Calls held for an answer that no message shows (an app view's). */
  heldCalls: HeldApproval[];
}

/** The tool call ids the messages show. */
function shownCalls(messages: UIMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    for (const part of message.parts) {
      if ("toolCallId" in part && typeof part.toolCallId === "string") ids.add(part.toolCallId);
    }
  }
  return ids;
}

export async function loadConversation(id: string): Promise<OpenChat> {
  const path = encodeURIComponent(id);
  const [rows, feedback, held] = await Promise.all([
    apiJson<StoredMessage[]>(`/chat/conversations/${path}/messages`),
    // At most one rating per message (the buttons lock once used); newest first.
    apiJson<Feedback[]>(`/chat/feedback?conversationId=${path}&limit=500`),
    apiJson<HeldApproval[]>(`/chat/approvals?conversationId=${path}`),
  ]);
  const messages: UIMessage[] = rows.map((row) => ({
    // The UI message id is `messageId`: feedback refers to it.
    id: row.messageId,
    role: row.role,
    parts: row.parts as UIMessage["parts"],
    ...(row.status ? { metadata: { status: row.status } } : {}),
  }));
  const ratings = new Map<string, Rating>();
  for (const row of feedback)
    if (!ratings.has(row.messageId)) ratings.set(row.messageId, row.rating);
  const shown = shownCalls(messages);
  return {
    chatId: id,
    conversationId: id,
    messages,
    ratings,
    heldCalls: held.filter((row) => row.conversationId === id && !shown.has(row.toolCallId)),
  };
}
