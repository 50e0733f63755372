/**
 * Builds the cheap per-request MCP server over tool definitions computed once. The tool
 * list object is shared (read-only); the caller arrives per request through `authInfo`.
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
import type { RequestContext, User } from "../core/types.js";
import { executeTool } from "../tools/executeTool.js";
import type { ToolDefinition } from "../tools/toolDefinitions.js";
import { errorResult, protocolError, successResult } from "./toolResult.js";

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

export function createServerFactory(
  tools: readonly ToolDefinition[],
  info: ServerInfo,
  logger: Logger,
) {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const listResult = { tools: tools.map(wireTool) };

  function fail(tool: ToolDefinition, error: unknown): CallToolResult {
    const terrenoError = error instanceof TerrenoError ? error : normalizeError(error);
    reportFailure(logger, terrenoError, { surface: "mcp", operation: tool.name });
    return errorResult(terrenoError);
  }

  async function callTool(
    tool: ToolDefinition,
    caller: McpCaller,
    args: unknown,
  ): Promise<CallToolResult> {
    const ctx: RequestContext = { user: caller.user, transport: "mcp", headers: caller.headers };
    try {
      return successResult(await executeTool(tool, ctx, args));
    } catch (error) {
      return fail(tool, error);
    }
  }

  return (ctx: McpRequestContext): Server => {
    const caller = (ctx.authInfo?.extra?.caller as McpCaller | undefined) ?? { headers: {} };
    const server = new Server(info, { capabilities: { tools: { listChanged: false } } });
    server.setRequestHandler("tools/list", () => {
      if (caller.failure) throw protocolError(caller.failure);
      return listResult;
    });
    server.setRequestHandler("tools/call", (request) => {
      const tool = byName.get(request.params.name);
      if (!tool) {
        throw protocolError(
          new TerrenoError(
            "unknown_tool",
            `Unknown tool: ${request.params.name}. Call tools/list for the available tools.`,
          ),
        );
      }
      if (caller.failure) return fail(tool, caller.failure);
      return callTool(tool, caller, request.params.arguments);
    });
    return server;
  };
}
