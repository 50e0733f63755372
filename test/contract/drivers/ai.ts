/**
 * The AI SDK driver: `getMCPTools({app, user})` tools, either executed directly (`execute`)
 * or called by a scripted `MockLanguageModelV4` inside `generateText` (`generateText`), which
 * adds the SDK's own input validation and the model-facing tool output to the path.
 */
import { generateText, isStepCount, type ModelMessage, type ToolSet } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { getMCPTools, getMCPToolsAsync } from "../../../src/ai/index.js";
import {
  failureFromBody,
  failureFromErrorText,
  type Outcome,
  successFromBody,
} from "../outcome.js";
import type { World } from "../world.js";
import { sessionDriver } from "./toolDriver.js";
import type { Driver } from "./types.js";

export type AiMode = "execute" | "generateText";

type GenerateResult = Awaited<ReturnType<MockLanguageModelV4["doGenerate"]>>;

const usage: GenerateResult["usage"] = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

function normalizeOutput(output: unknown, raw: string): Outcome {
  const value = (output ?? {}) as Record<string, unknown>;
  if ("error" in value) return failureFromBody(value.error, raw);
  return successFromBody(value, raw);
}

async function viaExecute(tools: ToolSet, name: string, input: unknown): Promise<Outcome> {
  const run = tools[name]?.execute;
  if (!run) throw new Error(`${name} has no execute`);
  const output = await run(input, {
    toolCallId: "contract",
    messages: [] as ModelMessage[],
    context: {},
  });
  return normalizeOutput(output, JSON.stringify(output));
}

let callCounter = 0;

/** One tool call as a model makes it (JSON text arguments), then a final text turn. */
async function viaModel(tools: ToolSet, name: string, input: unknown): Promise<Outcome> {
  callCounter += 1;
  const model = new MockLanguageModelV4({
    doGenerate: [
      {
        content: [
          {
            type: "tool-call",
            toolCallId: `contract-${callCounter}`,
            toolName: name,
            input: JSON.stringify(input),
          },
        ],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage,
        warnings: [],
      },
      {
        content: [{ type: "text", text: "done" }],
        finishReason: { unified: "stop", raw: "stop" },
        usage,
        warnings: [],
      },
    ],
  });
  const result = await generateText({
    model,
    tools,
    prompt: `Call ${name}.`,
    stopWhen: isStepCount(3),
  });
  const offered = (model.doGenerateCalls[0]?.tools ?? []).map((tool) => tool.name);
  if (!offered.includes(name)) throw new Error(`${name} was not offered to the model`);
  // What the model was shown afterwards is part of what must not leak.
  const raw = JSON.stringify({
    steps: result.steps.map((step) => step.content),
    shownToModel: model.doGenerateCalls.map((call) => call.prompt),
    text: result.text,
  });
  const step = result.steps[0];
  const toolResult = step?.toolResults[0];
  if (toolResult) return normalizeOutput(toolResult.output, raw);
  // Input the SDK refused before execute (our validator's message), or a thrown execute.
  const toolError = step?.content.find((part) => part.type === "tool-error");
  if (toolError) {
    const error = toolError.error as { message?: string } | string;
    const text = typeof error === "string" ? error : String(error.message);
    try {
      return failureFromErrorText(text, raw);
    } catch {
      throw new Error(`${name}: a tool-error that carries no error body: ${text.slice(0, 500)}`);
    }
  }
  throw new Error(`no tool result for ${name}: ${raw.slice(0, 500)}`);
}

export function aiDriver(world: World, mode: AiMode): Driver {
  return sessionDriver(`ai ${mode}`, async (as) => {
    // Async: the workspace models' permissions (WorkspaceRole) read the memberships.
    const tools =
      as === "anon"
        ? getMCPTools({ app: world.app })
        : await getMCPToolsAsync({ app: world.app, user: world.accounts[as].caller });
    return {
      offered: Object.keys(tools),
      call: (name, input) =>
        mode === "execute" ? viaExecute(tools, name, input) : viaModel(tools, name, input),
    };
  });
}
