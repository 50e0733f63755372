/**
 * Builds the cheap per-request MCP server over tool definitions computed once. The caller
 * arrives per request through `authInfo` and sees only its tools (src/tools/visibleTools.ts):
 * `tools/list` answers with a result object built once per distinct set of visible tools and
 * shared (read-only) by every caller who sees that set; `tools/call` answers a tool the
 * caller does not see exactly as a tool that does not exist.
 */
import {
  type CallToolResult,
  type McpRequestContext,
  Server,
  type Tool,
} from "@modelcontextprotocol/server";
import type { TerrenoError } from "../core/errors.js";
import { type Logger, reportFailure } from "../core/logger.js";
import { normalizeError } from "../core/normalizeError.js";
import type { OperationObserver } from "../core/observe.js";
import type { HiddenFieldsLookup, User } from "../core/types.js";
import type { RateLimits } from "../ops/rateLimit.js";
import type { AppViews } from "../tools/appViews/appViews.js";
import { runToolCall, type ToolRunnerOptions } from "../tools/runToolCall.js";
import type { ToolDefinition } from "../tools/toolDefinitions.js";
import { unknownTool } from "../tools/toolErrors.js";
import { createToolCatalog } from "../tools/visibleTools.js";
import { appCapabilities, registerAppResources, toolMeta } from "./appResources.js";
import { errorResult, protocolError, successResult } from "./toolResult.js";
import { catalogReply, toolsListResult } from "./toolsListReply.js";

export interface McpCaller {
  user?: User;
  headers: Readonly<Record<string, string | undefined>>;
  /** The client address, for the rate limits. */
  ip?: string;
  /** Set when the caller could not be resolved (the database is down): every call fails with it. */
  failure?: TerrenoError;
  /**
   * Set by `tools/call` when the runner refused the call for a reason HTTP states itself
   * (429 + Retry-After): the endpoint answers with this status and these headers
   * (httpHandler.ts), around the JSON-RPC error.
   */
  httpRefusal?: TerrenoError;
  /** Told when `httpRefusal` is set (the endpoint records the error code for telemetry). */
  onHttpRefusal?: (error: TerrenoError) => void;
}

export interface ServerInfo {
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

export function createServerFactory(
  tools: readonly ToolDefinition[],
  info: ServerInfo,
  logger: Logger,
  /** Told about every write (TerrenoApp's audit observer). */
  observer?: OperationObserver,
  /** The app's rate limits: every `tools/call` spends the caller's tool-call points. */
  rateLimits?: Pick<RateLimits, "consume">,
  /** The MCP Apps views (`mcp: {apps: true}`): linked from their tools, served as resources. */
  apps?: AppViews,
  /** The app's routers' hidden fields (RequestContext.hiddenOf). */
  hiddenOf?: HiddenFieldsLookup,
) {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  // What `tools/list` answers, built once per distinct set of visible tools (visibleTools.ts)
  // and serialized once too (toolsListReply.ts).
  const listFor = createToolCatalog(tools, (visible) =>
    catalogReply({ tools: visible.map((tool) => listedTool(tool, apps)) }),
  );
  const runner: ToolRunnerOptions = {
    surface: "mcp",
    logger,
    ...(observer ? { observer } : {}),
    ...(hiddenOf ? { hiddenOf } : {}),
    ...(rateLimits ? { rateLimit: { limits: rateLimits, spend: "toolCall" as const } } : {}),
  };

  /** A failure outside any one tool (e.g. a permission check threw while listing), reported. */
  function protocolFailure(error: unknown, operation: string): Error {
    const terrenoError = normalizeError(error);
    reportFailure(logger, terrenoError, { surface: "mcp", operation });
    return protocolError(terrenoError);
  }

  /** The runner's outcome in MCP's shape: a result, an `isError` result, or a JSON-RPC error. */
  async function callTool(caller: McpCaller, name: string, args: unknown): Promise<CallToolResult> {
    const outcome = await runToolCall(runner, {
      tool: byName.get(name),
      name,
      args,
      user: caller.user,
      headers: caller.headers,
      ...(caller.ip ? { ip: caller.ip } : {}),
      ...(caller.failure ? { failure: caller.failure } : {}),
    });
    if (outcome.status === "done") return successResult(outcome.output);
    // A tool this caller does not see answers exactly as a tool that does not exist.
    if (outcome.status === "unseen") throw protocolError(unknownTool(name));
    if (outcome.error.code === "rate_limited") {
      caller.httpRefusal = outcome.error;
      caller.onHttpRefusal?.(outcome.error);
      throw protocolError(outcome.error);
    }
    return errorResult(outcome.error);
  }

  return (ctx: McpRequestContext): Server => {
    const caller = (ctx.authInfo?.extra?.caller as McpCaller | undefined) ?? { headers: {} };
    const server = new Server(info, {
      capabilities: { tools: { listChanged: false }, ...(apps ? appCapabilities() : {}) },
    });
    if (apps) registerAppResources(server, apps, byName, caller.user);
    server.setRequestHandler("tools/list", async () => {
      if (caller.failure) throw protocolError(caller.failure);
      try {
        return toolsListResult(await listFor(caller.user), ctx.authInfo);
      } catch (error) {
        throw protocolFailure(error, "tools/list");
      }
    });
    server.setRequestHandler("tools/call", (request) =>
      callTool(caller, request.params.name, request.params.arguments),
    );
    return server;
  };
}
