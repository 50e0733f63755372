/**
 * The body of `POST /chat`: what `useChat` sends (`{id, messages: UIMessage[]}`) plus an optional
 * `conversationId`. Only the shape and the length of the user's text (chatPlugin's
 * `maxMessageLength`) are checked here; `convertToModelMessages` reads the parts.
 */
import type { UIMessage } from "ai";
import { TerrenoError, validationFailed } from "../core/errors.js";
import type { PlainObject } from "../core/types.js";

export interface ChatBody {
  id?: string;
  conversationId?: string;
  messages: UIMessage[];
}

/** The default of chatPlugin's `maxMessageLength`: characters of text in one user message. */
export const DEFAULT_MAX_MESSAGE_LENGTH = 8000;

function textLength(message: UIMessage): number {
  let length = 0;
  for (const part of message.parts) if (part.type === "text") length += part.text.length;
  return length;
}

/**
 * A 413 naming the limit when a user message's text is longer than `limit` characters. Every
 * user message counts, not only the last: the whole history goes to the model again.
 */
function checkMessageLength(messages: UIMessage[], limit: number): void {
  const fields: Record<string, string> = {};
  messages.forEach((message, index) => {
    if (message.role === "user" && textLength(message) > limit) {
      fields[`messages.${index}`] = `longer than ${limit} characters`;
    }
  });
  if (Object.keys(fields).length === 0) return;
  throw new TerrenoError(
    "payload_too_large",
    `A message may have at most ${limit.toLocaleString("en-US")} characters; shorten it and send again.`,
    fields,
  );
}

export function parseChatBody(
  body: unknown,
  maxMessageLength: number = DEFAULT_MAX_MESSAGE_LENGTH,
): ChatBody {
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
  checkMessageLength(messages as UIMessage[], maxMessageLength);
  return {
    messages: messages as UIMessage[],
    ...(id ? { id: id as string } : {}),
    ...(conversationId ? { conversationId: conversationId as string } : {}),
  };
}
