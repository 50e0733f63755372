/**
 * The body of `POST /chat`: what `useChat` sends (`{id, messages: UIMessage[]}`) plus an optional
 * `conversationId`. Only the shape is checked here; `convertToModelMessages` reads the parts.
 */
import type { UIMessage } from "ai";
import { validationFailed } from "../core/errors.js";
import type { PlainObject } from "../core/types.js";

export interface ChatBody {
  id?: string;
  conversationId?: string;
  messages: UIMessage[];
}

export function parseChatBody(body: unknown): ChatBody {
  if (typeof body !== "object" || body === null) {
    throw validationFailed("The body must be a JSON object with `messages`.");
  }
  const { id, conversationId, messages } = body as PlainObject;
  if (!Array.isArray(messages) || messages.length === 0) {
    throw validationFailed("`messages` must be a non-empty array of UI messages.", {
      messages: "required",
    });
  }
  messages.forEach((message, index) => {
    const m = message as PlainObject;
    if (
      typeof m !== "object" ||
      m === null ||
      !["user", "assistant", "system"].includes(m.role as string) ||
      !Array.isArray(m.parts)
    ) {
      throw validationFailed(`messages[${index}] must be {id, role, parts: [...]}.`, {
        [`messages.${index}`]: "invalid",
      });
    }
  });
  if (id !== undefined && (typeof id !== "string" || id.length > 200)) {
    throw validationFailed("`id` must be a string.", { id: "invalid" });
  }
  if (conversationId !== undefined && typeof conversationId !== "string") {
    throw validationFailed("`conversationId` must be a string.", { conversationId: "invalid" });
  }
  return {
    messages: messages as UIMessage[],
    ...(id ? { id: id as string } : {}),
    ...(conversationId ? { conversationId: conversationId as string } : {}),
  };
}
