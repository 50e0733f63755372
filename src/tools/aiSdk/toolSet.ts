/**
 * The AI SDK translation of the tool-call runner, shared by `terreno-mcp/ai` (getMCPTools) and
 * the chat: one AI SDK tool per definition, whose `execute` runs the shared runner
 * (src/tools/runToolCall.ts) and answers its outcome as `{data, ...}` or `{error}`. Only the
 * `ai` and `chat` entry points import it, so the package root never loads `ai`.
 */
import { type JSONSchema7, jsonSchema, type Schema, type Tool, tool } from "ai";
import { isWrite } from "../../core/isWrite.js";
import type { Logger } from "../../core/logger.js";
import type { PlainObject, User } from "../../core/types.js";
import { WORKSPACE_HEADER } from "../../core/workspace.js";
import { runToolCall, type ToolRunnerOptions } from "../runToolCall.js";
import type { Services } from "../services.js";
import type { ToolDefinition } from "../toolDefinitions.js";
import { errorOutput, type MCPToolOutput, toModelOutput } from "./toolOutput.js";

/**
 * A context-bound tool's per-call context (AI SDK 7 tool `context`, given through
 * `toolsContext`, one entry per tool name; `mcpToolsContext()` builds it): the caller.
 * A bare `User` is read too.
 */
export type MCPToolContext = { user?: User; workspaceId?: string };

/** One getMCPTools() tool: JSON input in, `{data, ...}` or `{error}` out. */
export type MCPTool = Tool<PlainObject, MCPToolOutput, MCPToolContext>;

/** What getMCPTools() returns: tools keyed by MCP tool name (an AI SDK `ToolSet`). */
export type MCPToolSet = Record<string, MCPTool>;

function isUser(value: unknown): value is User {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { id?: unknown }).id === "string"
  );
}

/** A tool `context` as a caller: `{ user }` first, then a bare `User`, else anonymous. */
function userFromContext(context: unknown): User | undefined {
  if (typeof context !== "object" || context === null) return undefined;
  const wrapped = (context as { user?: unknown }).user;
  if (isUser(wrapped)) return wrapped;
  return isUser(context) ? context : undefined;
}

/** The workspace a tool `context` names (`{ user, workspaceId }`), if any. */
function workspaceFromContext(context: unknown): string | undefined {
  if (typeof context !== "object" || context === null) return undefined;
  const id = (context as { workspaceId?: unknown }).workspaceId;
  return typeof id === "string" ? id : undefined;
}

/** The runner's options for these services, built once per services object. */
const runners = new WeakMap<Services, ToolRunnerOptions>();

function runnerFor(services: Services): ToolRunnerOptions {
  let runner = runners.get(services);
  if (!runner) {
    // The same rule and points as /mcp (src/ops/rateLimit.ts): `{error}` rate_limited when spent.
    runner = { surface: "ai", services };
    runners.set(services, runner);
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
  services: Services,
  callId?: string,
  idempotencyKey?: string,
  workspaceId?: string,
): Promise<MCPToolOutput> {
  const outcome = await runToolCall(runnerFor(services), {
    tool: def,
    name: def.name,
    args: input,
    user,
    ...(callId ? { callId } : {}),
    ...(idempotencyKey ? { idempotency: { key: idempotencyKey, field: "toolCallId" } } : {}),
    // The workspace the app chose for this caller, as an HTTP caller names it.
    ...(workspaceId ? { headers: { [WORKSPACE_HEADER]: workspaceId } } : {}),
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
 * services object, definition and approval setting; a user-bound tool is that object with its
 * own `execute`.
 */
const contextBound = new WeakMap<
  Services,
  WeakMap<ToolDefinition, { plain?: MCPTool; approval?: MCPTool }>
>();

function contextBoundTool(
  def: ToolDefinition,
  needsApproval: boolean,
  services: Services,
): MCPTool {
  let byDef = contextBound.get(services);
  if (!byDef) {
    byDef = new WeakMap();
    contextBound.set(services, byDef);
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
      return run(
        def,
        userFromContext(context),
        input,
        services,
        toolCallId,
        workspaceFromContext(context),
      );
    },
    toModelOutput,
  });
  entry[key] = built;
  return built;
}

/** The services with another logger: one object per pair, so the tools built for it are kept. */
const relogged = new WeakMap<Services, WeakMap<Logger, Services>>();

/** `services` reporting faults to `logger` instead (getMCPTools' `logger` option). */
export function withLogger(services: Services, logger: Logger | undefined): Services {
  if (!logger || logger === services.logger) return services;
  let byLogger = relogged.get(services);
  if (!byLogger) {
    byLogger = new WeakMap();
    relogged.set(services, byLogger);
  }
  let found = byLogger.get(logger);
  if (!found) {
    found = { ...services, logger };
    byLogger.set(logger, found);
  }
  return found;
}

export interface AiToolSetOptions {
  /** The caller every tool runs as; without one, each call reads its tool `context`. */
  user?: User;
  /** The workspace every call of a user-bound set acts in (as the X-Workspace-Id header). */
  workspaceId?: string;
  /** Sets the tool-level `needsApproval: true` on every tool that writes (`isWrite`). */
  requireApproval?: boolean;
  /** The app's services: where calls report, spend and are traced. */
  services: Services;
  /**
   * A user-bound call's idempotency key from its tool-call id (the chat's: conversation and
   * call id): a call runs at most once per key, a second one answers the first's outcome.
   */
  callKey?: (toolCallId: string) => string;
}

/** The definitions as AI SDK tools keyed by tool name, each running through the runner. */
export function aiToolSet(
  definitions: readonly ToolDefinition[],
  options: AiToolSetOptions,
): MCPToolSet {
  const { user, services, workspaceId } = options;
  const tools: Record<string, MCPTool> = {};
  for (const def of definitions) {
    const shared = contextBoundTool(
      def,
      options.requireApproval === true && isWrite(def),
      services,
    );
    tools[def.name] = user
      ? {
          ...shared,
          execute: (input, { abortSignal, toolCallId }) => {
            abortSignal?.throwIfAborted();
            return run(
              def,
              user,
              input,
              services,
              toolCallId,
              options.callKey?.(toolCallId),
              workspaceId,
            );
          },
        }
      : shared;
  }
  return tools;
}
