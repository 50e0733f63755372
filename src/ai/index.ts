/**
 * `terreno-mcp/ai`: the MCP tools as Vercel AI SDK tools, in process. A separate entry
 * point so that the package root never imports `ai` (an optional peer dependency).
 */

export type { MCPToolErrorOutput, MCPToolOutput } from "../tools/aiSdk/toolOutput.js";
export { type GetMCPPromptsOptions, getMCPPrompts, type MCPPrompt } from "./getMCPPrompts.js";
export {
  type CoreTool,
  type GetMCPToolsOptions,
  getMCPTools,
  getMCPToolsAsync,
  type MCPTool,
  type MCPToolContext,
  type MCPToolSet,
  mcpToolApproval,
  mcpToolsContext,
} from "./getMCPTools.js";
