/**
 * What the demo model reads from a prompt: the last user text, and the tool results that came
 * after it (those are what the model answers next: a follow-up call or a summary).
 */
import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import type { PlainObject } from "../core/types.js";

export interface ToolResult {
  toolName: string;
  ok: boolean;
  denied: boolean;
  value: unknown;
  error?: string;
}

function textOfUser(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) =>
      (part as PlainObject).type === "text" ? String((part as PlainObject).text) : "",
    )
    .join(" ");
}

/** The last user text and the tool results that followed it. */
/**
 * A failed call as one sentence: errorText's first line (`code: detail fields.`) without its
 * code and without the JSON body after it, so that the reply never shows raw JSON.
 */
function errorSentence(value: unknown): string {
  if (typeof value !== "string") {
    const error = (value as { error?: PlainObject } | null)?.error;
    return String(error?.detail ?? error?.title ?? "the tool failed");
  }
  const [first = ""] = value.split("\n");
  return first.replace(/^[a-z_]+: /, "").trim() || "the tool failed";
}

export function readPrompt(options: LanguageModelV4CallOptions): {
  text: string;
  results: ToolResult[];
} {
  const prompt = options.prompt;
  let lastUser = -1;
  prompt.forEach((message, index) => {
    if (message.role === "user") lastUser = index;
  });
  const text = lastUser >= 0 ? textOfUser(prompt[lastUser]?.content) : "";
  const results: ToolResult[] = [];
  for (const message of prompt.slice(lastUser + 1)) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type !== "tool-result") continue;
      const output = part.output as { type: string; value?: unknown; reason?: string };
      const result: ToolResult = {
        toolName: part.toolName,
        ok: true,
        denied: false,
        value: output.value,
      };
      if (output.type === "execution-denied") {
        result.ok = false;
        result.denied = true;
      } else if (output.type === "error-text" || output.type === "error-json") {
        result.ok = false;
        result.error = errorSentence(output.value);
      } else if (
        typeof output.value === "object" &&
        output.value !== null &&
        "error" in output.value
      ) {
        const error = (output.value as { error: PlainObject }).error;
        result.ok = false;
        result.error = String(error?.detail ?? error?.title ?? "failed");
      }
      results.push(result);
    }
  }
  return { text, results };
}
