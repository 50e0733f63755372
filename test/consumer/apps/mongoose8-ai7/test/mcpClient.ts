// This app's MCP client: the official 1.x SDK (`@modelcontextprotocol/sdk`), a 2025-era client.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { McpSession, ToolResult } from "./mcpSession.js";

export const MCP_CLIENT = "@modelcontextprotocol/sdk 1.x";

export async function connectMcp(url: URL, token: string): Promise<McpSession> {
  const client = new Client({ name: "consumer-mongoose8", version: "1.0.0" });
  const headers = { Authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return {
    listTools: async () => (await client.listTools()).tools,
    callTool: async (name, args) =>
      (await client.callTool({ name, arguments: args })) as ToolResult,
    close: () => client.close(),
  };
}
