/**
 * The chat model from the environment: any OpenAI-compatible endpoint (OpenAI, OpenRouter,
 * Groq, Together, a local Ollama or LM Studio, vLLM, ...) via `@ai-sdk/openai-compatible`.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";

export type Env = Readonly<Record<string, string | undefined>>;

export interface ModelConfig {
  /** The model, or undefined when the environment does not configure one. */
  model?: LanguageModel;
  /** One line for the start-up banner: which model, or what is missing. */
  summary: string;
}

export const LLM_HELP =
  "Set LLM_BASE_URL (an OpenAI-compatible API, e.g. https://api.openai.com/v1 or " +
  "http://127.0.0.1:11434/v1 for Ollama), LLM_MODEL (e.g. gpt-4o-mini or llama3.1) and, " +
  "if the endpoint needs one, LLM_API_KEY; then restart the server.";

export function modelFromEnv(env: Env = process.env): ModelConfig {
  const baseURL = env.LLM_BASE_URL?.trim();
  const modelId = env.LLM_MODEL?.trim();
  if (!baseURL || !modelId) {
    const missing = [!baseURL && "LLM_BASE_URL", !modelId && "LLM_MODEL"].filter(Boolean);
    return { summary: `not configured (missing ${missing.join(" and ")})` };
  }
  const provider = createOpenAICompatible({
    name: "llm",
    baseURL,
    apiKey: env.LLM_API_KEY?.trim() || undefined,
  });
  return { model: provider.chatModel(modelId), summary: `${modelId} at ${baseURL}` };
}
