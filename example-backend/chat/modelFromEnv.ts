/**
 * The chat model from the environment: with `LLM_BASE_URL` and `LLM_MODEL`, any
 * OpenAI-compatible endpoint (OpenAI, OpenRouter, Groq, Together, a local Ollama or LM Studio,
 * vLLM, ...) via `@ai-sdk/openai-compatible`; without them, the framework's offline demo model,
 * so the chat works on a fresh clone with no key (it is rule-based, not an LLM, and says so).
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import { createDemoModel, DEMO_MODEL_LABEL } from "../../src/chat/demo.js";

export type Env = Readonly<Record<string, string | undefined>>;

export interface ModelConfig {
  model: LanguageModel;
  /** How the page names the model (`GET /chat/info`'s `label`). */
  label: string;
  /** True when the offline demo model answers. */
  offline: boolean;
  /** One line for the start-up banner: which model, or how to configure a real one. */
  summary: string;
}

export function modelFromEnv(env: Env = process.env): ModelConfig {
  const baseURL = env.LLM_BASE_URL?.trim();
  const modelId = env.LLM_MODEL?.trim();
  if (!baseURL || !modelId) {
    return {
      model: createDemoModel(),
      label: DEMO_MODEL_LABEL,
      offline: true,
      summary:
        "offline demo model (rule-based, not an LLM); set LLM_BASE_URL and LLM_MODEL for a real one",
    };
  }
  const provider = createOpenAICompatible({
    name: "llm",
    baseURL,
    apiKey: env.LLM_API_KEY?.trim() || undefined,
  });
  return {
    model: provider.chatModel(modelId),
    // The page shows the model id only: the endpoint may be an internal address.
    label: modelId,
    offline: false,
    summary: `${modelId} at ${baseURL}`,
  };
}
