/** The shapes the page reads from the backend. */

/** A row of `GET /chat/conversations` (owner-only, newest activity first). */
export interface Conversation {
  id: string;
  title: string;
  updatedAt?: string;
}

/** A row of `GET /chat/conversations/:id/messages`. */
export interface StoredMessage {
  id: string;
  /** The UI message id, which feedback refers to. */
  messageId: string;
  role: "user" | "assistant" | "system";
  parts: unknown[];
  /** An assistant turn's state: `streaming`, `done`, `stopped` or `failed`. */
  status?: string;
}

/** A row of `GET /todos` (the caller's own). */
export interface Todo {
  id: string;
  title: string;
  completed?: boolean;
  dueDate?: string;
}

/** A thumbs up or down on an assistant message. */
export type Rating = "up" | "down";

/** A row of `GET /chat/feedback` (the caller's own, newest first). */
export interface Feedback {
  messageId: string;
  rating: Rating;
}

/** A row of `GET /chat/approvals`: a call the server holds for the caller's answer. */
export interface HeldApproval {
  conversationId: string;
  toolCallId: string;
  approvalId: string;
  toolName: string;
  input: unknown;
}

/** A row of `GET /workspaces`: one of the caller's workspaces, with their role in it. */
export interface Workspace {
  id: string;
  name: string;
  role: string;
}

/** A row of `GET /projects` (the current workspace's). */
export interface Project {
  id: string;
  name: string;
  status: "planned" | "active" | "done";
}
