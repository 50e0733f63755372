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
