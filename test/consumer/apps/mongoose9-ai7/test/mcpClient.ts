// This app's MCP client: the official v2 SDK client (`@modelcontextprotocol/client`).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { McpSession, ToolResult } from "./mcpSession.js";

export const MCP_CLIENT = "@modelcontextprotocol/client 2.x";

export async function connectMcp(url: URL, token: string): Promise<McpSession> {
  const client = new Client({ name: "consumer-mongoose9", version: "1.0.0" });
  const headers = { Authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return {
    listTools: async () => (await client.listTools()).tools,
    callTool: async (name, args) =>
      (await client.callTool({ name, arguments: args })) as ToolResult,
    close: () => client.close(),
  };
}
