/**
 * `GET /chat/info`: which model answers and how writes are gated, so a page can name the model
 * (and say plainly when the offline demo answers rather than an LLM) without guessing from
 * replies, and which message length it accepts. It reveals no endpoint, key or prompt: only what
 * the chat UI shows anyway.
 */
import type { LanguageModel } from "ai";
import type { Request, Response } from "express";
import { DEFAULT_MAX_MESSAGE_LENGTH } from "./chatBody.js";
import { DEMO_MODEL_ID, DEMO_MODEL_LABEL } from "./demoIdentity.js";
import type { ChatApproval } from "./types.js";

export interface ChatModelInfo {
  /** The model id, e.g. `gpt-4o-mini`; `terreno-demo` (DEMO_MODEL_ID) for the demo model. */
  model: string;
  /** The provider's name, e.g. `llm.chat`; absent for a gateway model given as a string. */
  provider?: string;
  /** A name for people: the plugin's `modelLabel`, else the model id; the demo model says what it is. */
  label: string;
  /** True for the built-in rule-based demo model: no LLM answers. */
  offline: boolean;
  /** Which tool calls wait for the user's approval (the plugin's `approval`). */
  approval: ChatApproval;
  /** Characters of text one user message may have (the plugin's `maxMessageLength`). */
  maxMessageLength: number;
}

export function chatModelInfo(
  model: LanguageModel,
  approval: ChatApproval,
  label?: string,
  maxMessageLength = DEFAULT_MAX_MESSAGE_LENGTH,
): ChatModelInfo {
  const id = typeof model === "string" ? model : model.modelId;
  const offline = typeof model !== "string" && model.modelId === DEMO_MODEL_ID;
  return {
    model: id,
    ...(typeof model === "string" ? {} : { provider: model.provider }),
    label: label ?? (offline ? DEMO_MODEL_LABEL : id),
    offline,
    approval,
    maxMessageLength,
  };
}

/** The route: `{data: ChatModelInfo}`, computed once. */
export function chatInfoHandler(info: ChatModelInfo) {
  const body = { data: info };
  return (_req: Request, res: Response): void => {
    res.json(body);
  };
}
