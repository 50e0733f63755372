// A scripted stand-in for an LLM, built on the AI SDK's own mock model: each model call takes the
// next step (tool calls, or text), then "Done." forever. Serves generateText and streamText alike.
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";

type GenerateResult = Awaited<ReturnType<MockLanguageModelV4["doGenerate"]>>;
type StreamResult = Awaited<ReturnType<MockLanguageModelV4["doStream"]>>;
type StreamPart = StreamResult["stream"] extends ReadableStream<infer Part> ? Part : never;

export type Step = { tool: string; input: Record<string, unknown> } | { text: string };

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

let callCount = 0;

function callId(): string {
  callCount += 1;
  return `call-${callCount}`;
}

function generated(step: Step): GenerateResult {
  if ("tool" in step) {
    return {
      content: [
        {
          type: "tool-call",
          toolCallId: callId(),
          toolName: step.tool,
          input: JSON.stringify(step.input),
        },
      ],
      finishReason: { unified: "tool-calls", raw: "tool_calls" },
      usage,
      warnings: [],
    };
  }
  return {
    content: [{ type: "text", text: step.text }],
    finishReason: { unified: "stop", raw: "stop" },
    usage,
    warnings: [],
  };
}

function streamed(step: Step): StreamResult {
  const parts: StreamPart[] = [{ type: "stream-start", warnings: [] }];
  if ("tool" in step) {
    parts.push({
      type: "tool-call",
      toolCallId: callId(),
      toolName: step.tool,
      input: JSON.stringify(step.input),
    });
    parts.push({
      type: "finish",
      finishReason: { unified: "tool-calls", raw: "tool_calls" },
      usage,
    });
  } else {
    parts.push({ type: "text-start", id: "t" });
    parts.push({ type: "text-delta", id: "t", delta: step.text });
    parts.push({ type: "text-end", id: "t" });
    parts.push({ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage });
  }
  return { stream: convertArrayToReadableStream(parts) };
}

/** Takes its steps from `queue` as calls come, so a caller may push more steps later. */
export function scriptedModel(queue: Step[]): MockLanguageModelV4 {
  const next = (): Step => queue.shift() ?? { text: "Done." };
  return new MockLanguageModelV4({
    modelId: "consumer-mock",
    doGenerate: async () => generated(next()),
    doStream: async () => streamed(next()),
  });
}
