/**
 * The app's prompts over MCP: `prompts/list` (built once per distinct set of visible prompts,
 * as `tools/list` is), `prompts/get` through the prompt runner (verdict, rate limit, trace:
 * src/tools/prompts.ts), and `completion/complete` of their arguments: an enum's values, a
 * model's field among the records the caller may list (an internal call of that model's list
 * tool through the tool-call runner, as record completions are), or the prompt's own function
 * run as the caller. A prompt the caller does not see answers exactly as one that does not
 * exist, and completes to nothing. Built once; nothing here is rebuilt per request.
 */
import type { GetPromptResult, ListPromptsResult, Prompt } from "@modelcontextprotocol/server";
import type { PromptArgumentDefinition, PromptDefinition } from "../core/promptTypes.js";
import type { Resource } from "../core/resource.js";
import { type PromptRunnerOptions, runPromptCall, unknownPrompt } from "../tools/prompts.js";
import { runToolCall, type ToolRunnerOptions } from "../tools/runToolCall.js";
import type { CrudToolDefinition, ToolDefinition } from "../tools/toolDefinitions.js";
import { canSeeTool, createToolCatalog } from "../tools/visibleTools.js";
import type { McpCaller } from "./caller.js";
import { completeFieldValue, completeRecordId } from "./completions.js";
import { titleFieldOf } from "./recordResources.js";
import { type Completion, EMPTY_COMPLETION } from "./resourceProviders.js";
import { protocolError } from "./toolResult.js";

/** The protocol allows at most 100 values per answer. */
const MAX_VALUES = 100;

/** An argument completed from a model's field, resolved once against the app's tools. */
interface FieldSource {
  resource: Resource;
  list: CrudToolDefinition;
  field: string;
}

export interface McpPrompts {
  /** What the server declares: `prompts`, and `completions` when an argument completes. */
  capabilities: { prompts: { listChanged: false }; completions?: Record<string, never> };
  list(caller: McpCaller): Promise<ListPromptsResult>;
  get(caller: McpCaller, name: string, args: unknown): Promise<GetPromptResult>;
  complete(
    caller: McpCaller,
    name: string,
    argument: { name: string; value: string },
  ): Promise<Completion>;
}

function wirePrompt(prompt: PromptDefinition): Prompt {
  return {
    name: prompt.name,
    title: prompt.title,
    description: prompt.description,
    arguments: prompt.arguments.map((arg) => ({
      name: arg.name,
      ...(arg.description ? { description: arg.description } : {}),
      required: arg.required,
    })),
  };
}

function fieldSource(
  prompt: PromptDefinition,
  arg: PromptArgumentDefinition,
  from: { model: string; field?: string },
  tools: readonly ToolDefinition[],
): FieldSource {
  const where = `terreno-mcp: prompt ${prompt.name} completes "${arg.name}" from ${from.model}`;
  const list = tools.find(
    (tool): tool is CrudToolDefinition =>
      tool.kind === "crud" &&
      tool.method === "list" &&
      tool.resource.model.modelName === from.model,
  );
  if (!list) throw new Error(`${where}, which has no list tool (mcp with the list method).`);
  const { resource } = list;
  const field = from.field ?? titleFieldOf(resource);
  if (!field) throw new Error(`${where}: name the field (it has no title field).`);
  const path = resource.description.byPath.get(field);
  const visible =
    field === "id" || (path?.kind === "string" && !resource.views.tools.hidden.isHidden(field));
  if (!visible) throw new Error(`${where}.${field}: not a string field its tools show.`);
  return { resource, list, field };
}

function matchEnum(values: readonly string[], typed: string): Completion {
  const lower = typed.toLowerCase();
  const found = values.filter((value) => value.toLowerCase().startsWith(lower));
  return {
    values: found.slice(0, MAX_VALUES),
    total: found.length,
    hasMore: found.length > MAX_VALUES,
  };
}

function capped(values: readonly string[]): Completion {
  const strings = values.filter((value) => typeof value === "string");
  return {
    values: strings.slice(0, MAX_VALUES),
    total: strings.length,
    hasMore: strings.length > MAX_VALUES,
  };
}

export function mcpPrompts(
  prompts: readonly PromptDefinition[],
  tools: readonly ToolDefinition[],
  runner: ToolRunnerOptions,
): McpPrompts {
  const byName = new Map(prompts.map((prompt) => [prompt.name, prompt]));
  const promptRunner: PromptRunnerOptions = { surface: "mcp", services: runner.services };
  const listFor = createToolCatalog(prompts, (visible) => ({ prompts: visible.map(wirePrompt) }));
  // Field sources are resolved (and refused when wrong) when the endpoint is built.
  const sources = new Map<string, FieldSource>();
  for (const prompt of prompts) {
    for (const arg of prompt.arguments) {
      const from = arg.complete;
      if (from && typeof from === "object") {
        sources.set(`${prompt.name}\u0000${arg.name}`, fieldSource(prompt, arg, from, tools));
      }
    }
  }
  const completes = prompts.some((prompt) =>
    prompt.arguments.some((arg) => arg.values || arg.complete),
  );

  function callOf(caller: McpCaller) {
    return {
      user: caller.user,
      headers: caller.headers,
      ...(caller.ip ? { ip: caller.ip } : {}),
      ...(caller.failure ? { failure: caller.failure } : {}),
    };
  }

  async function completeFromField(
    source: FieldSource,
    caller: McpCaller,
    value: string,
  ): Promise<Completion> {
    const { resource, list, field } = source;
    const outcome = await runToolCall(runner, {
      tool: list,
      name: list.name,
      args: {},
      operation: "completion/complete",
      ...callOf(caller),
      run: async (ctx) => ({
        completion:
          field === "id"
            ? await completeRecordId(resource, titleFieldOf(resource), value, ctx)
            : await completeFieldValue(resource, field, value, ctx),
      }),
    });
    if (outcome.status === "done") return outcome.output.completion as Completion;
    if (outcome.status === "unseen") return EMPTY_COMPLETION;
    throw protocolError(outcome.error);
  }

  return {
    capabilities: { prompts: { listChanged: false }, ...(completes ? { completions: {} } : {}) },
    list: async (caller) => listFor(caller.user),
    async get(caller, name, args) {
      const prompt = byName.get(name);
      if (!prompt) throw protocolError(unknownPrompt(name));
      const outcome = await runPromptCall(promptRunner, {
        prompt,
        name,
        ...callOf(caller),
        run: async (ctx) => prompt.messages(prompt.parse(args), ctx),
      });
      // A prompt the caller does not see answers exactly as one that does not exist.
      if (outcome.status === "unseen") throw protocolError(unknownPrompt(name));
      if (outcome.status === "failed") throw protocolError(outcome.error);
      return {
        description: prompt.description,
        messages: outcome.output.map((message) => ({
          role: message.role,
          content: { type: "text" as const, text: message.content },
        })),
      };
    },
    async complete(caller, name, argument) {
      const prompt = byName.get(name);
      const arg = prompt?.arguments.find((candidate) => candidate.name === argument.name);
      // A prompt the caller does not see completes to nothing, as one that does not exist.
      if (!prompt || !arg || !(await canSeeTool(prompt, caller.user))) return EMPTY_COMPLETION;
      const value = String(argument.value ?? "");
      if (arg.values) return matchEnum(arg.values, value);
      const from = arg.complete;
      if (!from) return EMPTY_COMPLETION;
      if (typeof from === "object") {
        const source = sources.get(`${prompt.name}\u0000${arg.name}`) as FieldSource;
        return completeFromField(source, caller, value);
      }
      const outcome = await runPromptCall(promptRunner, {
        prompt,
        name,
        method: "completion/complete",
        ...callOf(caller),
        run: async (ctx) => from(value, ctx),
      });
      if (outcome.status === "done") return capped(outcome.output);
      if (outcome.status === "unseen") return EMPTY_COMPLETION;
      throw protocolError(outcome.error);
    },
  };
}
