/**
 * getMCPTools(): the app's MCP tools as Vercel AI SDK tools, for apps that run their own
 * chat loop (generateText, streamText, ToolLoopAgent) in process. Same definitions, same
 * JSON Schemas, the same compiled validators and the same pipeline as the /mcp endpoint:
 * an adapter, with no rule of its own about permissions or fields.
 */
import {
  type JSONSchema7,
  jsonSchema,
  type Schema,
  type Tool,
  type ToolApprovalConfiguration,
  type ToolSet,
  tool,
} from "ai";
import type { TerrenoApp } from "../app/TerrenoApp.js";
import { isWrite } from "../core/isWrite.js";
import { consoleLogger, type Logger } from "../core/logger.js";
import type { OperationObserver } from "../core/observe.js";
import type { CrudMethod, PlainObject, User } from "../core/types.js";
import type { RateLimits } from "../ops/rateLimit.js";
import { runToolCall, type ToolRunnerOptions } from "../tools/runToolCall.js";
import type { ToolDefinition } from "../tools/toolDefinitions.js";
import { toolsVisibleTo } from "../tools/visibleTools.js";
import { errorOutput, type MCPToolOutput, toModelOutput } from "./toolOutput.js";

/** The AI SDK's tool type under its former name (`CoreTool`, removed in AI SDK 5): `Tool`. */
export type CoreTool = Tool;

/**
 * A context-bound tool's per-call context (AI SDK 7 tool `context`, given through
 * `toolsContext`, one entry per tool name; `mcpToolsContext()` builds it): the caller.
 * A bare `User` is read too.
 */
export type MCPToolContext = { user?: User };

/** One getMCPTools() tool: JSON input in, `{data, ...}` or `{error}` out. */
export type MCPTool = Tool<PlainObject, MCPToolOutput, MCPToolContext>;

/** What getMCPTools() returns: tools keyed by MCP tool name (an AI SDK `ToolSet`). */
export type MCPToolSet = Record<string, MCPTool>;

interface GetMCPToolsCommonOptions {
  /**
   * The caller every tool runs as. The set then holds only the tools this user sees, as on
   * /mcp's `tools/list` (src/tools/visibleTools.ts: method-level permissions, token scope,
   * `allowAnonymous`); a tool the user does not see is absent, as an unknown tool would be.
   * When absent, every selected tool is offered and each call takes its caller from its tool
   * `context` (AI SDK 7: `toolsContext: mcpToolsContext(tools, user)` on generateText or
   * streamText, which gives each tool `{ user }`; a bare `User` is read too).
   * With neither, the call is anonymous, which the pipeline refuses unless the model sets
   * `allowAnonymous`. Whatever the set holds, the pipeline checks every call.
   */
  user?: User;
  /** Which tools to offer. Filters combine (a tool must pass each one given). */
  include?: {
    /** Mongoose model names, e.g. `["Todo"]`. */
    models?: string[];
    methods?: CrudMethod[];
    /** Tool names, e.g. `["todos_list", "todos_read"]`. */
    tools?: string[];
  };
  /**
   * Sets the tool-level `needsApproval: true` on the create, update and delete tools, and on
   * action and custom tools not annotated read-only. Default false. AI SDK 7 still honours it
   * but deprecates it: prefer `toolApproval: mcpToolApproval(tools)` on the call.
   */
  requireApproval?: boolean;
  /** Where server faults are reported. Default: the app's logger, else the console. */
  logger?: Logger;
}

export type GetMCPToolsOptions = GetMCPToolsCommonOptions &
  (
    | {
        /** The app whose registered, MCP-enabled routers become tools. */
        app: Pick<TerrenoApp, "toolDefinitions"> & {
          logger?: Logger;
          /** The app's audit observer: tool writes reach its `onAudit` sinks. */
          observer?: OperationObserver;
          /** The app's rate limits: tool calls spend the same points as on /mcp. */
          rateLimits?: Pick<RateLimits, "enabled" | "consume">;
        };
        tools?: never;
      }
    | {
        /** Tool definitions, e.g. a subset of `app.toolDefinitions`. */
        tools: readonly ToolDefinition[];
        app?: never;
      }
  );

function isUser(value: unknown): value is User {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { id?: unknown }).id === "string"
  );
}

/** A tool `context` as a caller: `{ user }` first, then a bare `User`, else anonymous. */
export function userFromContext(context: unknown): User | undefined {
  if (typeof context !== "object" || context === null) return undefined;
  const wrapped = (context as { user?: unknown }).user;
  if (isUser(wrapped)) return wrapped;
  return isUser(context) ? context : undefined;
}

/** Where a tool's failures and writes are reported: the logger and the app's observer. */
interface Reporting {
  logger: Logger;
  observer?: OperationObserver;
  /** The app's rate limits, when on. */
  rateLimits?: Pick<RateLimits, "consume">;
}

/** The runner's options for this set, built once per reporting set (logger, observer, limits). */
const runners = new WeakMap<Reporting, ToolRunnerOptions>();

function runnerFor(reporting: Reporting): ToolRunnerOptions {
  let runner = runners.get(reporting);
  if (!runner) {
    const { logger, observer, rateLimits } = reporting;
    runner = {
      surface: "ai",
      logger,
      ...(observer ? { observer } : {}),
      // The same rule and points as /mcp (src/ops/rateLimit.ts): `{error}` rate_limited when spent.
      ...(rateLimits ? { rateLimit: { limits: rateLimits, spend: "toolCall" as const } } : {}),
    };
    runners.set(reporting, runner);
  }
  return runner;
}

/**
 * One call through the shared runner (src/tools/runToolCall.ts), its outcome as the AI SDK
 * tool's output: the tool's `{data, ...}`, or `{error}`. A tool this set offers though the
 * caller may not call it answers the verdict's own refusal (401/403), not "unknown".
 */
async function run(
  def: ToolDefinition,
  user: User | undefined,
  input: unknown,
  reporting: Reporting,
  callId?: string,
): Promise<MCPToolOutput> {
  const outcome = await runToolCall(runnerFor(reporting), {
    tool: def,
    name: def.name,
    args: input,
    user,
    ...(callId ? { callId } : {}),
  });
  return outcome.status === "done" ? outcome.output : errorOutput(outcome.error);
}

/**
 * The input schema is the definition's JSON Schema as is, for the model to read. It is not
 * checked here: `execute` runs the shared pipeline, which checks every call once and answers
 * a bad one with the same `{error}` result (and text) as MCP.
 */
function inputSchemaFor(def: ToolDefinition): Schema<PlainObject> {
  return jsonSchema<PlainObject>(def.inputSchema as JSONSchema7);
}

/**
 * Context-bound tools (no `user` option) hold nothing per caller, so one is kept per
 * definition and approval setting; a user-bound tool is that object with its own `execute`.
 */
const contextBound = new WeakMap<
  Logger,
  WeakMap<object, WeakMap<object, WeakMap<ToolDefinition, { plain?: MCPTool; approval?: MCPTool }>>>
>();
/** The observer (and rate-limits) key for tools that report to no observer (spend no points). */
const NO_OBSERVER = {};

function contextBoundTool(
  def: ToolDefinition,
  needsApproval: boolean,
  reporting: Reporting,
): MCPTool {
  const { logger, observer = NO_OBSERVER, rateLimits = NO_OBSERVER } = reporting;
  let byObserver = contextBound.get(logger);
  if (!byObserver) {
    byObserver = new WeakMap();
    contextBound.set(logger, byObserver);
  }
  let byLimits = byObserver.get(observer);
  if (!byLimits) {
    byLimits = new WeakMap();
    byObserver.set(observer, byLimits);
  }
  let byDef = byLimits.get(rateLimits);
  if (!byDef) {
    byDef = new WeakMap();
    byLimits.set(rateLimits, byDef);
  }
  let entry = byDef.get(def);
  if (!entry) {
    entry = {};
    byDef.set(def, entry);
  }
  const key = needsApproval ? "approval" : "plain";
  const cached = entry[key];
  if (cached) return cached;
  const built = tool<PlainObject, MCPToolOutput, MCPToolContext>({
    title: def.title,
    description: def.description,
    inputSchema: inputSchemaFor(def),
    // Describes success (`{data, ...}`); `{error}` results fall outside it, as MCP `isError`
    // results fall outside MCP's outputSchema. The AI SDK does not validate outputs here.
    outputSchema: jsonSchema<MCPToolOutput>(def.outputSchema as JSONSchema7),
    // Not sent to the model; surfaces on tool-call parts as `toolMetadata` (like @ai-sdk/mcp).
    metadata: { annotations: { ...def.annotations } },
    ...(needsApproval ? { needsApproval: true } : {}),
    execute: (input, { abortSignal, context, toolCallId }) => {
      abortSignal?.throwIfAborted();
      return run(def, userFromContext(context), input, reporting, toolCallId);
    },
    toModelOutput,
  });
  entry[key] = built;
  return built;
}

function selectDefinitions(options: GetMCPToolsOptions): readonly ToolDefinition[] {
  const all = options.app ? options.app.toolDefinitions : options.tools;
  if (!all) throw new Error("getMCPTools: pass `app` (a TerrenoApp) or `tools` (definitions).");
  const { include } = options;
  if (!include) return all;
  const models = include.models && new Set(include.models);
  const methods = include.methods && new Set(include.methods);
  const names = include.tools && new Set(include.tools);
  // A misspelt name would silently offer fewer tools; fail where it is written instead.
  const unknownModels = [...(models ?? [])].filter(
    (name) => !all.some((def) => def.resource?.model.modelName === name),
  );
  const unknownTools = [...(names ?? [])].filter((name) => !all.some((def) => def.name === name));
  if (unknownModels.length > 0 || unknownTools.length > 0) {
    const parts = [
      unknownModels.length > 0 ? `unknown models ${unknownModels.join(", ")}` : "",
      unknownTools.length > 0 ? `unknown tools ${unknownTools.join(", ")}` : "",
    ].filter(Boolean);
    throw new Error(
      `getMCPTools: include names ${parts.join("; ")}. Available tools: ${all.map((def) => def.name).join(", ")}.`,
    );
  }
  return all.filter(
    (def) =>
      (!models || (def.resource !== undefined && models.has(def.resource.model.modelName))) &&
      (!methods || (def.method !== undefined && methods.has(def.method))) &&
      (!names || names.has(def.name)),
  );
}

function toolSet(definitions: readonly ToolDefinition[], options: GetMCPToolsOptions): MCPToolSet {
  const { user } = options;
  const reporting: Reporting = {
    logger: options.logger ?? options.app?.logger ?? consoleLogger,
    observer: options.app?.observer,
    ...(options.app?.rateLimits?.enabled ? { rateLimits: options.app.rateLimits } : {}),
  };
  const tools: Record<string, MCPTool> = {};
  for (const def of definitions) {
    const shared = contextBoundTool(
      def,
      options.requireApproval === true && isWrite(def),
      reporting,
    );
    tools[def.name] = user
      ? {
          ...shared,
          execute: (input, { abortSignal, toolCallId }) => {
            abortSignal?.throwIfAborted();
            return run(def, user, input, reporting, toolCallId);
          },
        }
      : shared;
  }
  return tools;
}

/**
 * The MCP tools of `app` (or of the given definitions) as an AI SDK ToolSet keyed by MCP
 * tool name. With `user`, only the tools that user sees. Cheap enough to call per request:
 * schemas and validators were built once with the definitions, and context-bound tools are
 * reused across calls.
 *
 * Synchronous: with `user`, the permissions deciding which tools it sees must answer
 * synchronously (IsAuthenticated, IsAdmin, IsOwner... do). When one returns a promise this
 * throws; use `await getMCPToolsAsync(options)` instead.
 */
export function getMCPTools(options: GetMCPToolsOptions): MCPToolSet {
  const selected = selectDefinitions(options);
  // Context-bound tools learn their caller per call, where the pipeline refuses what it must.
  if (!options.user) return toolSet(selected, options);
  const visible = toolsVisibleTo(selected, options.user);
  if (visible instanceof Promise) {
    visible.catch(() => {}); // the checks already started; their outcome is not needed
    throw new Error(
      "getMCPTools: a permission check answered with a promise, so which tools this user " +
        "sees is not known synchronously. Use `await getMCPToolsAsync({...})` instead.",
    );
  }
  return toolSet(visible, options);
}

/**
 * getMCPTools() for apps whose permission checks are async (e.g. they read the database):
 * the same ToolSet, once every check that decides which tools `user` sees has answered.
 */
export async function getMCPToolsAsync(options: GetMCPToolsOptions): Promise<MCPToolSet> {
  const selected = selectDefinitions(options);
  if (!options.user) return toolSet(selected, options);
  return toolSet(await toolsVisibleTo(selected, options.user), options);
}

/**
 * AI SDK 7's per-call approval for a getMCPTools() set: `{ todos_create: "user-approval", ... }`
 * for every tool not annotated read-only (creates, updates, deletes, and actions and custom
 * tools without `readOnlyHint`). Pass it as `toolApproval` to generateText/streamText.
 */
export function mcpToolApproval<TOOLS extends ToolSet>(
  tools: TOOLS,
): ToolApprovalConfiguration<TOOLS, unknown> {
  const approval: Record<string, "user-approval"> = {};
  for (const [name, item] of Object.entries(tools)) {
    const annotations = (item.metadata as { annotations?: PlainObject } | undefined)?.annotations;
    // The same rule as everywhere: a tool writes unless annotated read-only.
    if (isWrite({ annotations })) approval[name] = "user-approval";
  }
  return approval as ToolApprovalConfiguration<TOOLS, unknown>;
}

/**
 * AI SDK 7's `toolsContext` for a context-bound getMCPTools() set (no `user` option): every
 * tool gets `{ user }`, the caller its calls run as.
 */
export function mcpToolsContext(
  tools: ToolSet,
  user: User | undefined,
): Record<string, MCPToolContext> {
  const context: Record<string, MCPToolContext> = {};
  for (const name of Object.keys(tools)) context[name] = user ? { user } : {};
  return context;
}
