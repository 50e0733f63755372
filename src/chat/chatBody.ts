/**
 * The body of `POST /chat`: what `useChat` sends (`{id, messages: UIMessage[]}`) plus an optional
 * `conversationId`. The shape of every message and part (chatParts.ts: a malformed part, or a
 * file that is not inline, is a 400 naming it) and the length of the user's text (chatPlugin's
 * `maxMessageLength`) are checked here, before anything is stored or sent to the model.
 */
import type { UIMessage } from "ai";
import { TerrenoError, validationFailed } from "../core/errors.js";
import type { PlainObject } from "../core/types.js";
import { checkMessageParts, type FileUrlPolicy, type RemoteFilePart } from "./chatParts.js";

export interface ChatBody {
  id?: string;
  conversationId?: string;
  messages: UIMessage[];
  /** The user's files named by remote URLs (only with `remoteFiles`): chatFiles.ts fetches them. */
  remoteFiles: RemoteFilePart[];
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

/** What parseChatBody checks against: chatPlugin's `maxMessageLength` and `remoteFiles`. */
interface ChatBodyLimits {
  maxMessageLength: number;
  files: FileUrlPolicy;
}

/** A 400 naming every malformed part; its detail says what is wrong with the first. */
function checkParts(
  messages: Array<{ role: unknown; parts: unknown[] }>,
  files: FileUrlPolicy,
): RemoteFilePart[] {
  const { problems, remote } = checkMessageParts(messages, files);
  const first = Object.entries(problems)[0];
  if (!first) return remote;
  throw validationFailed(`${first[0]}: ${first[1]}.`, problems);
}

export function parseChatBody(body: unknown, limits: ChatBodyLimits): ChatBody {
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
      !Array.isArray(m.parts) ||
      // The id names the stored row (chatStore.ts): a string, never a query.
      (m.id !== undefined && (typeof m.id !== "string" || m.id.length > 200))
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
  const remoteFiles = checkParts(
    messages as Array<{ role: unknown; parts: unknown[] }>,
    limits.files,
  );
  checkMessageLength(messages as UIMessage[], limits.maxMessageLength);
  return {
    messages: messages as UIMessage[],
    remoteFiles,
    ...(id ? { id: id as string } : {}),
    ...(conversationId ? { conversationId: conversationId as string } : {}),
  };
}
