/**
 * Builds the cheap per-request MCP server over tool definitions computed once. The caller
 * arrives per request in its `McpRequestState` (requestState.ts) and sees only its tools
 * (src/tools/visibleTools.ts):
 * `tools/list` answers with a result object built once per distinct set of visible tools and
 * shared (read-only) by every caller who sees that set; `tools/call` answers a tool the
 * caller does not see exactly as a tool that does not exist.
 */
import {
  type CacheHint,
  type CallToolResult,
  type InputRequiredResult,
  Server,
  type ServerContext,
  type Tool,
} from "@modelcontextprotocol/server";
import { type Logger, reportFailure } from "../core/logger.js";
import { normalizeError } from "../core/normalizeError.js";
import type { AppViews } from "../tools/appViews/appViews.js";
import { runToolCall, type ToolRunnerOptions } from "../tools/runToolCall.js";
import type { ToolDefinition } from "../tools/toolDefinitions.js";
import { unknownTool } from "../tools/toolErrors.js";
import { createToolCatalog } from "../tools/visibleTools.js";
import { appCapabilities, toolMeta } from "./appResources.js";
import type { McpCaller } from "./caller.js";
import {
  type Answer,
  answerOf,
  askLegacy,
  askModern,
  elicitsForms,
  modernCapabilities,
  needsConfirmation,
  notConfirmed,
} from "./confirm.js";
import type { ConfirmationStates } from "./confirmationStates.js";
import type { ServerFactoryContext } from "./httpHandler.js";
import type { McpPrompts } from "./prompts.js";
import { McpRequestState, mcpRequestState } from "./requestState.js";
import {
  completeResource,
  EMPTY_COMPLETION,
  guardFor,
  type McpResourceProvider,
  resourceCapabilities,
  serveResources,
} from "./resourceProviders.js";
import { errorResult, protocolError, successResult } from "./toolResult.js";
import { catalogReply, toolsListResult } from "./toolsListReply.js";

interface ServerInfo {
  name: string;
  version: string;
}

export function wireTool(tool: ToolDefinition): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    // Our generated schemas always have a root `type: "object"` (checked by the portability tests).
    inputSchema: tool.inputSchema as Tool["inputSchema"],
    outputSchema: tool.outputSchema as Tool["outputSchema"],
    annotations: tool.annotations,
  };
}

/** The tool as listed, with the `_meta` of its MCP App view when it links one. */
function listedTool(tool: ToolDefinition, apps: AppViews | undefined): Tool {
  const meta = toolMeta(apps, tool.name);
  return meta ? { ...wireTool(tool), _meta: meta } : wireTool(tool);
}

/** What a 2026-07-28 call answers instead of running: the question, or why it cannot ask. */
type ModernReply = InputRequiredResult | CallToolResult;

/** Everything the per-request servers share, built once (endpoint.ts). */
export interface ServerFactoryOptions {
  tools: readonly ToolDefinition[];
  info: ServerInfo;
  logger: Logger;
  /** The one tool-call runner's options (runner.ts). */
  runner: ToolRunnerOptions;
  /** Where `resources/*` and `completion/complete` are answered (resourceProviders.ts). */
  resources?: readonly McpResourceProvider[];
  /** The app's prompts (`app.prompt`): `prompts/*` and their arguments' completions (prompts.ts). */
  prompts?: McpPrompts;
  /**
   * The MCP Apps views (`mcp: {apps: true}`): linked from their tools' `_meta`, declared as
   * the extension; their `ui://` resources are one of `resources`.
   */
  apps?: AppViews;
  /** Signs and checks the 2026-07-28 confirmation questions' state (confirmationStates.ts). */
  states?: ConfirmationStates;
  /** Adds to a tool's successful result (the records it returns, linked: resourceLinks.ts). */
  decorateResult?: (
    tool: ToolDefinition | undefined,
    caller: McpCaller,
    result: CallToolResult,
  ) => Promise<CallToolResult>;
}

/**
 * The 2026 era's cache hints, one for every cacheable answer. Every list is per caller (its
 * permissions decide what it holds) and records change at any time, so none is kept by a
 * shared cache, nor kept at all: a permission taken away shows on the next list.
 */
const PER_USER = { ttlMs: 0, cacheScope: "private" } as const;
const CACHE_HINTS = {
  "tools/list": PER_USER,
  "prompts/list": PER_USER,
  "resources/list": PER_USER,
  "resources/read": PER_USER,
  "resources/templates/list": PER_USER,
  "server/discover": PER_USER,
} as const satisfies Partial<Record<CacheableMethod, CacheHint>>;

type CacheableMethod =
  | "tools/list"
  | "prompts/list"
  | "resources/list"
  | "resources/read"
  | "resources/templates/list"
  | "server/discover";

export function createServerFactory(options: ServerFactoryOptions) {
  const { tools, info, logger, runner, decorateResult, apps, states, prompts } = options;
  const providers = options.resources ?? [];
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  // What `tools/list` answers, built once per distinct set of visible tools (visibleTools.ts)
  // and serialized once too (toolsListReply.ts).
  const listFor = createToolCatalog(tools, (visible) =>
    catalogReply({ tools: visible.map((tool) => listedTool(tool, apps)) }),
  );
  const capabilities = {
    tools: { listChanged: false },
    ...resourceCapabilities(providers),
    ...(prompts?.capabilities ?? {}),
    ...(apps ? { extensions: appCapabilities().extensions } : {}),
  };
  const completes = "completions" in capabilities;
  const serverOptions = { capabilities, cacheHints: CACHE_HINTS };

  /** A failure outside any one tool (e.g. a permission check threw while listing), reported. */
  function protocolFailure(error: unknown, operation: string): Error {
    const terrenoError = normalizeError(error);
    reportFailure(logger, terrenoError, { surface: "mcp", operation });
    return protocolError(terrenoError);
  }

  /**
   * The person's answer a 2026-07-28 retry carries, when it carries the state the server issued
   * for this very call (tool, arguments, caller; unexpired, unused); else the question (again),
   * with a fresh state. A state that cannot be issued or redeemed (the database away) is an
   * `isError`.
   */
  async function modernAnswer(
    tool: ToolDefinition,
    args: unknown,
    reqCtx: ServerContext,
  ): Promise<{ answer: Answer; reply?: never } | { answer?: never; reply: ModernReply }> {
    try {
      const answer = answerOf(reqCtx.mcpReq.inputResponses);
      const state = reqCtx.mcpReq.requestState();
      if (answer && (await states?.redeem(state, tool.name, args, reqCtx))) return { answer };
      if (!states) throw new Error("Confirmations need request states (endpoint.ts).");
      return { reply: askModern(tool, args, await states.mint(tool.name, args, reqCtx)) };
    } catch (error) {
      const terrenoError = normalizeError(error);
      reportFailure(logger, terrenoError, { surface: "mcp", operation: "confirm" });
      return { reply: errorResult(terrenoError) };
    }
  }

  /** The runner's outcome in MCP's shape: a result, an `isError` result, or a JSON-RPC error. */
  async function callTool(
    caller: McpCaller,
    name: string,
    args: unknown,
    meta: Record<string, unknown> | undefined,
  ): Promise<CallToolResult> {
    const tool = byName.get(name);
    const outcome = await runToolCall(runner, {
      tool,
      name,
      args,
      user: caller.user,
      headers: caller.headers,
      ...(caller.ip ? { ip: caller.ip } : {}),
      ...(caller.failure ? { failure: caller.failure } : {}),
      // A retried call with the same key replays the first outcome (src/ops/idempotency.ts).
      ...(meta && meta.idempotencyKey !== undefined
        ? { idempotency: { key: meta.idempotencyKey, field: "_meta.idempotencyKey" } }
        : {}),
    });
    if (outcome.status === "done") {
      const done = successResult(outcome.output);
      const result = outcome.replayed ? { ...done, _meta: { idempotentReplayed: true } } : done;
      return decorateResult ? decorateResult(tool, caller, result) : result;
    }
    // A tool this caller does not see answers exactly as a tool that does not exist.
    if (outcome.status === "unseen") throw protocolError(unknownTool(name));
    // A rate limit is a JSON-RPC error, answered with 429 (McpRequestState.noteThrown).
    if (outcome.error.code === "rate_limited") throw protocolError(outcome.error);
    return errorResult(outcome.error);
  }

  return (ctx: ServerFactoryContext): Server => {
    const bound = mcpRequestState(ctx.requestInfo);
    // A factory used without the endpoint (no bound state) serves an anonymous caller.
    const state = bound ?? new McpRequestState({ headers: {} });
    const { caller } = state;
    const server = new Server(info, serverOptions);
    server.setRequestHandler("tools/list", async () => {
      if (caller.failure) throw protocolError(caller.failure);
      try {
        return toolsListResult(await listFor(caller.user, caller.workspace), bound);
      } catch (error) {
        throw protocolFailure(error, "tools/list");
      }
    });
    server.setRequestHandler("tools/call", async (request, reqCtx) => {
      const { name, arguments: args } = request.params;
      const tool = byName.get(name);
      try {
        const confirmed = await needsConfirmation(tool, caller, args);
        if (confirmed && ctx.era === "modern" && elicitsForms(modernCapabilities(reqCtx))) {
          const { answer, reply } = await modernAnswer(confirmed, args, reqCtx);
          if (!answer) return reply;
          if (!answer.yes) return notConfirmed(confirmed, answer.action);
        }
        // The 2025 era asks on the call's own stream, when the session says it can (legacyAsks.ts).
        if (confirmed && ctx.era === "legacy" && elicitsForms(ctx.legacyClient)) {
          const answer = await askLegacy(server, confirmed, args, reqCtx);
          if (!answer.yes) return notConfirmed(confirmed, answer.action);
        }
        return await callTool(caller, name, args, request.params._meta);
      } catch (error) {
        state.noteThrown(error);
        throw error;
      }
    });
    serveResources(server, providers, state, protocolFailure);
    const guarded = guardFor(state, protocolFailure);
    if (prompts) {
      server.setRequestHandler(
        "prompts/list",
        guarded("prompts/list", async () => prompts.list(caller)),
      );
      server.setRequestHandler(
        "prompts/get",
        guarded("prompts/get", async (request) =>
          prompts.get(caller, request.params.name, request.params.arguments),
        ),
      );
    }
    if (completes) {
      server.setRequestHandler(
        "completion/complete",
        guarded("completion/complete", async (request) => {
          const { ref, argument } = request.params;
          const completion =
            ref.type === "ref/prompt"
              ? await (prompts?.complete(caller, ref.name, argument) ?? EMPTY_COMPLETION)
              : await completeResource(providers, ref.uri, argument, caller);
          return { completion };
        }),
      );
    }
    return server;
  };
}
