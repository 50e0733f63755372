// What the smoke test needs of an MCP client; each app's test/mcpClient.ts implements it with
// one of the official SDK clients (v1 `@modelcontextprotocol/sdk` or v2 `@modelcontextprotocol/client`).

export interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: Array<{ type: string; text?: string }>;
}

export interface McpSession {
  listTools(): Promise<Array<{ name: string; inputSchema: Record<string, unknown> }>>;
  callTool(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}
