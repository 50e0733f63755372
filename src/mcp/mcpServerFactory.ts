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
import { TerrenoError } from "../core/errors.js";
import { type Logger, reportFailure } from "../core/logger.js";
import { normalizeError } from "../core/normalizeError.js";
import type { OperationObserver } from "../core/observe.js";
import type { RequestContext, User } from "../core/types.js";
import { type ToolCallTrace, traceToolCall } from "../ops/telemetry.js";
import { executeTool } from "../tools/executeTool.js";
import type { ToolDefinition } from "../tools/toolDefinitions.js";
import { canSeeTool, createToolCatalog } from "../tools/visibleTools.js";
import { errorResult, protocolError, successResult } from "./toolResult.js";
import { catalogReply, toolsListResult } from "./toolsListReply.js";

export interface McpCaller {
  user?: User;
  headers: Readonly<Record<string, string | undefined>>;
  /** Set when the caller could not be resolved (the database is down): every call fails with it. */
  failure?: TerrenoError;
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

/** The answer to a tool that does not exist, or that this caller does not see: the same. */
function unknownTool(name: string): Error {
  return protocolError(
    new TerrenoError(
      "unknown_tool",
      `Unknown tool: ${name}. Call tools/list for the available tools.`,
    ),
  );
}

export function createServerFactory(
  tools: readonly ToolDefinition[],
  info: ServerInfo,
  logger: Logger,
  /** Told about every write (TerrenoApp's audit observer). */
  observer?: OperationObserver,
) {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  // What `tools/list` answers, built once per distinct set of visible tools (visibleTools.ts)
  // and serialized once too (toolsListReply.ts).
  const listFor = createToolCatalog(tools, (visible) =>
    catalogReply({ tools: visible.map(wireTool) }),
  );

  /** A failure outside any one tool (e.g. a permission check threw while listing), reported. */
  function protocolFailure(error: unknown, operation: string): Error {
    const terrenoError = error instanceof TerrenoError ? error : normalizeError(error);
    reportFailure(logger, terrenoError, { surface: "mcp", operation });
    return protocolError(terrenoError);
  }

  function fail(tool: ToolDefinition, error: unknown, trace?: ToolCallTrace): CallToolResult {
    const terrenoError = error instanceof TerrenoError ? error : normalizeError(error);
    reportFailure(logger, terrenoError, { surface: "mcp", operation: tool.name });
    trace?.fail(terrenoError);
    return errorResult(terrenoError);
  }

  async function callTool(
    tool: ToolDefinition,
    caller: McpCaller,
    args: unknown,
    trace: ToolCallTrace,
  ): Promise<CallToolResult> {
    const ctx: RequestContext = {
      user: caller.user,
      transport: "mcp",
      headers: caller.headers,
      operation: tool.name,
      ...(observer ? { observer } : {}),
    };
    try {
      return successResult(await executeTool(tool, ctx, args));
    } catch (error) {
      return fail(tool, error, trace);
    }
  }

  return (ctx: McpRequestContext): Server => {
    const caller = (ctx.authInfo?.extra?.caller as McpCaller | undefined) ?? { headers: {} };
    const server = new Server(info, { capabilities: { tools: { listChanged: false } } });
    server.setRequestHandler("tools/list", async () => {
      if (caller.failure) throw protocolError(caller.failure);
      try {
        return toolsListResult(await listFor(caller.user), ctx.authInfo);
      } catch (error) {
        throw protocolFailure(error, "tools/list");
      }
    });
    server.setRequestHandler("tools/call", async (request) => {
      const { name } = request.params;
      const tool = byName.get(name);
      if (!tool) throw unknownTool(name);
      const { failure } = caller;
      // An unresolved caller (database down) gets the documented outage result, not a guess.
      if (failure) {
        return traceToolCall({ surface: "mcp", tool: tool.name }, async (trace) =>
          fail(tool, failure, trace),
        );
      }
      let visible: boolean;
      try {
        visible = await canSeeTool(tool, caller.user);
      } catch (error) {
        return traceToolCall({ surface: "mcp", tool: tool.name }, async (trace) =>
          fail(tool, error, trace),
        );
      }
      // A tool this caller does not see answers exactly as a tool that does not exist.
      if (!visible) throw unknownTool(name);
      return traceToolCall({ surface: "mcp", tool: tool.name }, (trace) =>
        callTool(tool, caller, request.params.arguments, trace),
      );
    });
    return server;
  };
}
