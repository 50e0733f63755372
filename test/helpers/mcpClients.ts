/** Real MCP clients against a listening app: the SDK v2 client (auto or legacy) and the v1 client. */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Express } from "express";

export interface Listening {
  url: string;
  close(): Promise<void>;
}

export async function listen(app: Express): Promise<Listening> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type ClientKind = "v2-auto" | "v2-legacy" | "v1";
export const CLIENT_KINDS: readonly ClientKind[] = ["v2-auto", "v2-legacy", "v1"];

export interface ToolCallOutcome {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: Array<{ type: string; text?: string }>;
}

export interface McpTestClient {
  listTools(): Promise<Array<Record<string, unknown> & { name: string }>>;
  callTool(name: string, args: Record<string, unknown>): Promise<ToolCallOutcome>;
  close(): Promise<void>;
}

interface SdkClient {
  listTools(): Promise<{ tools: unknown[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

function wrap(client: SdkClient): McpTestClient {
  return {
    listTools: async () =>
      (await client.listTools()).tools as Array<Record<string, unknown> & { name: string }>,
    callTool: async (name, args) =>
      (await client.callTool({ name, arguments: args })) as ToolCallOutcome,
    close: () => client.close(),
  };
}

export async function connectClient(
  kind: ClientKind,
  url: string,
  token?: string,
): Promise<McpTestClient> {
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  const endpoint = new URL("/mcp", url);
  if (kind === "v1") {
    const client = new ClientV1({ name: "terreno-test-v1", version: "1.0.0" });
    await client.connect(new TransportV1(endpoint, { requestInit: { headers } }));
    return wrap(client);
  }
  const mode = kind === "v2-legacy" ? "legacy" : "auto";
  const client = new ClientV2(
    { name: "terreno-test-v2", version: "1.0.0" },
    { versionNegotiation: { mode } },
  );
  await client.connect(new TransportV2(endpoint, { requestInit: { headers } }));
  return wrap(client);
}

/** The `{error}` body an isError result carries in its text. */
export function toolError(result: ToolCallOutcome): {
  code: string;
  detail: string;
  fields?: Record<string, string>;
} {
  const text = result.content.find((c) => c.type === "text")?.text ?? "";
  const json = text.slice(text.indexOf("\n") + 1);
  return JSON.parse(json).error;
}
