/**
 * Raw MCP requests, as real clients send them over Streamable HTTP: one JSON-RPC POST with
 * `Accept: application/json, text/event-stream` and a Bearer token. "modern" is the 2026-07-28
 * shape (per-request `_meta` envelope plus the MCP-Protocol-Version/-Method/-Name headers, what
 * the v2 SDK client sends); "legacy" is a 2025-era stateless POST with no envelope.
 */
import type { HttpRequestSpec } from "./load.js";

export type McpEra = "modern" | "legacy";

const MODERN_PROTOCOL_VERSION = "2026-07-28";

const CLIENT_INFO = { name: "terreno-bench", version: "1.0.0" };

export function mcpRequest(
  url: string,
  token: string,
  era: McpEra,
  method: "tools/list" | "tools/call",
  params: Record<string, unknown> = {},
): HttpRequestSpec {
  const headers: Record<string, string> = {
    accept: "application/json, text/event-stream",
    "content-type": "application/json",
    authorization: `Bearer ${token}`,
  };
  let fullParams: Record<string, unknown> = params;
  if (era === "modern") {
    headers["mcp-protocol-version"] = MODERN_PROTOCOL_VERSION;
    headers["mcp-method"] = method;
    if (method === "tools/call") headers["mcp-name"] = String(params.name);
    fullParams = {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": MODERN_PROTOCOL_VERSION,
        "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    };
  }
  return {
    url,
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: fullParams }),
  };
}

export function toolCall(
  url: string,
  token: string,
  era: McpEra,
  name: string,
  args: Record<string, unknown>,
): HttpRequestSpec {
  return mcpRequest(url, token, era, "tools/call", { name, arguments: args });
}

export interface SentResponse {
  status: number;
  contentType: string;
  bytes: number;
  /** The parsed JSON body, or the first SSE `data:` event's JSON. */
  json: unknown;
}

/** Sends one request with fetch and parses JSON or an SSE stream's first message. */
export async function send(spec: HttpRequestSpec): Promise<SentResponse> {
  const response = await fetch(spec.url, {
    method: spec.method,
    headers: spec.headers,
    body: spec.body,
  });
  const text = await response.text();
  const contentType = response.headers.get("content-type") ?? "";
  let json: unknown;
  if (contentType.includes("text/event-stream")) {
    const data = text
      .split("\n")
      .find((line) => line.startsWith("data:"))
      ?.slice(5);
    json = data ? JSON.parse(data) : undefined;
  } else {
    json = text ? JSON.parse(text) : undefined;
  }
  return { status: response.status, contentType, bytes: Buffer.byteLength(text), json };
}

/** A tool call's payload: our `structuredContent`, else the JSON in the first text block. */
export function toolPayload(json: unknown): Record<string, unknown> {
  const rpc = json as {
    error?: { message?: string };
    result?: {
      isError?: boolean;
      structuredContent?: Record<string, unknown>;
      content?: Array<{ type: string; text?: string }>;
    };
  };
  if (rpc?.error) throw new Error(`JSON-RPC error: ${JSON.stringify(rpc.error)}`);
  const result = rpc?.result;
  if (!result) throw new Error(`not a JSON-RPC result: ${JSON.stringify(json).slice(0, 300)}`);
  if (result.isError) throw new Error(`tool error: ${JSON.stringify(result).slice(0, 300)}`);
  if (result.structuredContent) return result.structuredContent;
  const text = result.content?.find((c) => c.type === "text")?.text;
  if (!text) throw new Error("tool result has no content");
  return JSON.parse(text);
}
