/**
 * getMCPTools(): the app's MCP tools as Vercel AI SDK tools, for apps that run their own
 * chat loop (generateText, streamText, ToolLoopAgent) in process. Same definitions, same
 * JSON Schemas, the same compiled validators and the same pipeline as the /mcp endpoint:
 * an adapter, with no rule of its own about permissions or fields.
 */
import type { Tool, ToolApprovalConfiguration, ToolSet } from "ai";
import { isWrite } from "../core/isWrite.js";
import type { Logger } from "../core/logger.js";
import type { CrudMethod, PlainObject, User } from "../core/types.js";
import { WORKSPACE_HEADER, workspaceAccess } from "../core/workspace.js";
import type { WorkspaceAccess } from "../core/workspaceTypes.js";
import {
  aiToolSet,
  type MCPToolContext,
  type MCPToolSet,
  withLogger,
} from "../tools/aiSdk/toolSet.js";
import { STANDALONE_SERVICES } from "../tools/services.js";
import type { ToolDefinition } from "../tools/toolDefinitions.js";
import type { ToolHost } from "../tools/toolHost.js";
import { toolResource } from "../tools/toolKinds.js";
import { toolsVisibleTo } from "../tools/visibleTools.js";

export type { MCPTool, MCPToolContext, MCPToolSet } from "../tools/aiSdk/toolSet.js";

/** The AI SDK's tool type under its former name (`CoreTool`, removed in AI SDK 5): `Tool`. */
export type CoreTool = Tool;

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
  /**
   * The workspace the calls act in, for an app with workspaces (as the `X-Workspace-Id` header
   * names it on HTTP). Not needed when the user has one workspace or a bound token. A
   * context-bound set reads it from each tool `context` instead (`{ user, workspaceId }`).
   */
  workspaceId?: string;
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
        app: ToolHost;
        tools?: never;
      }
    | {
        /** Tool definitions, e.g. a subset of `app.toolDefinitions`. */
        tools: readonly ToolDefinition[];
        app?: never;
      }
  );

/** The caller's workspace as the visibility rule reads it (`WorkspaceRole`). */
function workspaceOf(options: GetMCPToolsOptions): WorkspaceAccess | undefined {
  const directory = options.app?.services.workspaces;
  if (!directory) return undefined;
  const headers = options.workspaceId ? { [WORKSPACE_HEADER]: options.workspaceId } : {};
  return workspaceAccess(directory, { user: options.user, headers });
}

function toolSet(definitions: readonly ToolDefinition[], options: GetMCPToolsOptions): MCPToolSet {
  return aiToolSet(definitions, {
    ...(options.user ? { user: options.user } : {}),
    ...(options.workspaceId ? { workspaceId: options.workspaceId } : {}),
    requireApproval: options.requireApproval === true,
    services: withLogger(options.app?.services ?? STANDALONE_SERVICES, options.logger),
  });
}

function selectDefinitions(options: GetMCPToolsOptions): readonly ToolDefinition[] {
  const all = options.app ? options.app.services.tools : options.tools;
  if (!all) throw new Error("getMCPTools: pass `app` (a TerrenoApp) or `tools` (definitions).");
  const { include } = options;
  if (!include) return all;
  const models = include.models && new Set(include.models);
  const methods = include.methods && new Set(include.methods);
  const names = include.tools && new Set(include.tools);
  // A misspelt name would silently offer fewer tools; fail where it is written instead.
  const unknownModels = [...(models ?? [])].filter(
    (name) => !all.some((def) => toolResource(def)?.model.modelName === name),
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
  const inModels = (def: ToolDefinition) => {
    const resource = toolResource(def);
    return resource !== undefined && models?.has(resource.model.modelName) === true;
  };
  return all.filter(
    (def) =>
      (!models || inModels(def)) &&
      (!methods || (def.method !== undefined && methods.has(def.method))) &&
      (!names || names.has(def.name)),
  );
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
  const visible = toolsVisibleTo(selected, options.user, workspaceOf(options));
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
  return toolSet(await toolsVisibleTo(selected, options.user, workspaceOf(options)), options);
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
