/**
 * Validates a `/chat` body: `{prompt: string}` or `{messages: [{role, content}]}` with roles
 * `user` and `assistant` only (the system prompt is the server's). Bad input is a 400 with the
 * framework's `fields`.
 */
import type { ModelMessage } from "ai";
import { type FieldErrors, TerrenoError } from "../../src/index.js";

export const MAX_MESSAGES = 50;
export const MAX_CONTENT = 8000;

const ROLES = new Set(["user", "assistant"]);

function fail(fields: FieldErrors): never {
  throw new TerrenoError(
    "validation_failed",
    "The body must be {prompt: string} or {messages: [{role: 'user' | 'assistant', content: string}]}.",
    fields,
  );
}

function checkContent(value: unknown, path: string, errors: FieldErrors): void {
  if (typeof value !== "string" || value.trim() === "") errors[path] = "must be a non-empty string";
  else if (value.length > MAX_CONTENT) errors[path] = `must be at most ${MAX_CONTENT} characters`;
}

export function parseChatBody(body: unknown): ModelMessage[] {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    fail({ "(root)": "must be an object" });
  }
  const record = body as Record<string, unknown>;
  const errors: FieldErrors = {};
  for (const key of Object.keys(record)) {
    if (key !== "prompt" && key !== "messages") errors[key] = "is not an allowed field";
  }
  const hasPrompt = record.prompt !== undefined;
  const hasMessages = record.messages !== undefined;
  if (hasPrompt === hasMessages) {
    errors["(root)"] = "must have exactly one of prompt or messages";
    fail(errors);
  }

  if (hasPrompt) {
    checkContent(record.prompt, "prompt", errors);
    if (Object.keys(errors).length > 0) fail(errors);
    return [{ role: "user", content: record.prompt as string }];
  }

  const messages = record.messages;
  if (!Array.isArray(messages) || messages.length === 0 || messages.length > MAX_MESSAGES) {
    fail({ ...errors, messages: `must be an array of 1 to ${MAX_MESSAGES} messages` });
  }
  messages.forEach((message: unknown, index) => {
    const path = `messages.${index}`;
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      errors[path] = "must be an object";
      return;
    }
    const { role, content, ...rest } = message as Record<string, unknown>;
    for (const key of Object.keys(rest)) errors[`${path}.${key}`] = "is not an allowed field";
    if (typeof role !== "string" || !ROLES.has(role)) {
      errors[`${path}.role`] = "must be 'user' or 'assistant'";
    }
    checkContent(content, `${path}.content`, errors);
  });
  if (Object.keys(errors).length > 0) fail(errors);
  const last = messages[messages.length - 1] as { role: string };
  if (last.role !== "user") fail({ [`messages.${messages.length - 1}.role`]: "must be 'user'" });
  return messages.map((message) => {
    const { role, content } = message as { role: "user" | "assistant"; content: string };
    return { role, content };
  });
}
