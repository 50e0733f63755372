/**
 * Sends the framework's error shape (`{status, title, detail, code}`) for the chat route's own
 * failures, which have no code in the framework's closed REST set: the model is not configured
 * (503) or the model's API failed before any text was sent (502).
 */
import type { Response } from "express";

export type ChatErrorCode = "llm_not_configured" | "llm_failed";

const STATUS: Record<ChatErrorCode, { status: number; title: string }> = {
  llm_not_configured: { status: 503, title: "Service Unavailable" },
  llm_failed: { status: 502, title: "Bad Gateway" },
};

export function sendChatError(res: Response, code: ChatErrorCode, detail: string): void {
  const { status, title } = STATUS[code];
  res.status(status).json({ status, title, detail, code });
}
