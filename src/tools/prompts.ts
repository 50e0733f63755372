/**
 * Prompt definitions (`app.prompt(name, spec)`), built once like tools: the arguments as MCP
 * lists them (name, description, required, an enum's values), the access rule the one verdict
 * judges (a prompt never writes, so a read-only token sees it), and the one argument
 * validation. `runPromptCall` is the prompts' runner, the tool-call runner's twin for every
 * surface that serves prompts (/mcp `prompts/get` and `completion/complete`, getMCPPrompts()):
 * context → verdict (a prompt the caller may not see is `unseen`) → rate-limit spend (tool-call
 * points) → the step, inside its trace, with failures normalized and reported.
 */
import { z } from "zod";
import { TerrenoError } from "../core/errors.js";
import { reportFailure } from "../core/logger.js";
import { normalizeError } from "../core/normalizeError.js";
import { parseInput } from "../core/operations/action.js";
import { list } from "../core/operations/list.js";
import { read } from "../core/operations/read.js";
import type {
  PromptCompletion,
  PromptConfig,
  PromptContext,
  PromptDefinition,
  PromptRecords,
} from "../core/promptTypes.js";
import type { Resource } from "../core/resource.js";
import { callContext } from "../core/services.js";
import type { PermissionMethod, RequestContext, Surface, User } from "../core/types.js";
import { type Refusal, verdict } from "../core/verdict.js";
import { portableJsonSchema } from "../core/zodSchema.js";
import type { JsonSchema } from "../schema/types.js";
import { MAX_TOOL_NAME_LENGTH, toolName } from "./naming.js";
import type { Services } from "./services.js";

const everyone: PermissionMethod = () => true;

function titleOf(name: string): string {
  const words = name.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function enumValues(schema: JsonSchema): string[] | undefined {
  for (const branch of schema.anyOf ?? [schema]) {
    if (branch.enum) return branch.enum.filter((v): v is string => typeof v === "string");
  }
  return undefined;
}

/** The definition of `app.prompt(name, config)`; a name that is not portable fails here. */
export function promptDefinition(name: string, config: PromptConfig): PromptDefinition {
  toolName({ kind: "prompt", name });
  const shape = config.arguments ?? {};
  const input = z.object(shape);
  const schema = portableJsonSchema(input, `prompt ${name} arguments`);
  const required = new Set(schema.required ?? []);
  const complete = (config.complete ?? {}) as Record<string, PromptCompletion | undefined>;
  for (const key of Object.keys(complete)) {
    if (!(key in shape)) {
      throw new Error(`terreno-mcp: prompt ${name} completes "${key}", which is not an argument.`);
    }
  }
  const permissions = config.permissions;
  return {
    name,
    title: config.title ?? titleOf(name),
    description: config.description,
    arguments: Object.entries(schema.properties ?? {}).map(([key, property]) => {
      const values = enumValues(property);
      const completion = complete[key];
      return {
        name: key,
        ...(property.description ? { description: property.description } : {}),
        required: required.has(key),
        ...(values ? { values } : {}),
        ...(completion ? { complete: completion } : {}),
      };
    }),
    access: {
      method: name,
      write: false,
      anonymous: config.allowAnonymous === true,
      permissions:
        permissions === undefined
          ? [everyone]
          : typeof permissions === "function"
            ? [(_method, user) => permissions(user)]
            : permissions,
    },
    parse: (args) => parseInput(input, args, `prompt ${name}`),
    messages: async (args, ctx) => config.messages(args as never, ctx),
  };
}

/** The app's prompts with their names checked: a duplicate fails at start-up. */
export function checkedPrompts(prompts: readonly PromptDefinition[]): PromptDefinition[] {
  const names = new Set<string>();
  for (const prompt of prompts) {
    if (names.has(prompt.name)) {
      throw new Error(`terreno-mcp: duplicate prompt name "${prompt.name}".`);
    }
    names.add(prompt.name);
  }
  return [...prompts].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The answer to a prompt that does not exist, or that this caller does not see: the same. */
export function unknownPrompt(name: string): TerrenoError {
  return new TerrenoError(
    "unknown_tool",
    `Unknown prompt: ${name.slice(0, MAX_TOOL_NAME_LENGTH)}. Call prompts/list for the available prompts.`,
  );
}

function resourceNamed(services: Services, model: string): Resource {
  const resource = services.resources.find((r) => r.model.modelName === model);
  if (!resource) throw new TerrenoError("not_found", `No model ${model} is served.`);
  return resource;
}

/** The caller's records through the core: the verdict, `queryFilter` and views of the surface. */
function recordsOf(ctx: RequestContext, services: Services): PromptRecords {
  return {
    list: (model, input = {}) => list(resourceNamed(services, model), ctx, input),
    read: (model, id) => read(resourceNamed(services, model), ctx, { id }),
  };
}

/** What a surface gives the prompt runner once. */
export interface PromptRunnerOptions {
  surface: Exclude<Surface, "internal" | "rest">;
  services: Services;
}

export interface PromptCall {
  prompt: PromptDefinition | undefined;
  name: string;
  user?: User;
  headers?: Readonly<Record<string, string | undefined>>;
  ip?: string;
  /** Set when the caller could not be resolved: the call fails with it. */
  failure?: TerrenoError;
  /** `prompts/get` (the default) or `completion/complete`, for the trace and the report. */
  method?: "prompts/get" | "completion/complete";
}

export type PromptOutcome<T> =
  | { status: "done"; output: T }
  | { status: "unseen"; error: TerrenoError; refusal?: Refusal }
  | { status: "failed"; error: TerrenoError };

/** Runs one prompt call through every step; never throws. */
export async function runPromptCall<T>(
  options: PromptRunnerOptions,
  call: PromptCall & { run: (ctx: PromptContext) => Promise<T> },
): Promise<PromptOutcome<T>> {
  const { prompt } = call;
  if (!prompt) return { status: "unseen", error: unknownPrompt(call.name) };
  const { services, surface } = options;
  const method = call.method ?? "prompts/get";
  return services.tracer<PromptOutcome<T>>(
    { surface, tool: prompt.name, method },
    async (trace) => {
      const failed = (error: unknown): PromptOutcome<T> => {
        const terrenoError = normalizeError(error);
        reportFailure(services.logger, terrenoError, {
          surface,
          operation: `${method} ${prompt.name}`,
        });
        trace.fail(terrenoError);
        return { status: "failed", error: terrenoError };
      };
      if (call.failure) return failed(call.failure);
      const base = callContext(services, {
        user: call.user,
        transport: surface,
        headers: call.headers ?? {},
        operation: prompt.name,
      });
      const ctx: PromptContext = { ...base, records: recordsOf(base, services) };
      trace.context(base);
      try {
        const answer = await verdict(prompt.access, ctx);
        if (answer !== "allowed") {
          trace.fail(unknownPrompt(call.name));
          return { status: "unseen", error: unknownPrompt(call.name), refusal: answer };
        }
        await services.rateLimits?.consume({
          action: "toolCall",
          user: call.user,
          ...(call.ip ? { ip: call.ip } : {}),
        });
        return { status: "done", output: await call.run(ctx) };
      } catch (error) {
        return failed(error);
      }
    },
  );
}
