/** Real MCP clients against a listening app: the SDK v2 client (auto or legacy) and the v1 client. */
import { createServer, type Server } from "node:http";
import { Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { after, before } from "node:test";
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
  const server = createServer(app);
  // fetch (undici) reuses an idle socket until shortly before the server's keep-alive timeout
  // (5 s by default). On a loaded machine the server's close and the client's next request
  // cross, and the request fails with ECONNRESET. Tests pause between calls for seconds at
  // most, so a longer timeout keeps that race out of reach; close() ends every socket anyway.
  server.keepAliveTimeout = 30_000;
  return listenOn(server);
}

/**
 * `server` listening on a free port of 127.0.0.1: its origin (https for a TLS server), its port,
 * and a close that ends every socket, idle or not, before closing.
 */
export async function listenOn(
  server: Server | HttpsServer,
): Promise<Listening & { port: number }> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const scheme = server instanceof HttpsServer ? "https" : "http";
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * `app` listening on 127.0.0.1 for the enclosing suite: started before its tests, closed after
 * them. node:test runs `after` hooks in the order they were registered, so a suite that must
 * close its clients first registers that hook before calling this. Read `url` inside a test
 * or hook.
 */
export function useListening(app: Express): Listening {
  let live: Listening | undefined;
  before(async () => {
    live = await listen(app);
  });
  after(() => live?.close());
  return {
    get url() {
      if (!live) throw new Error("the app is not listening yet");
      return live.url;
    },
    close: async () => {
      await live?.close();
    },
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

/** What the v1 and v2 SDK clients share beyond tools: resources, completions, capabilities. */
export interface SdkTestClient {
  listResources(params?: { cursor?: string }): Promise<{
    resources: Array<{ uri: string; name: string; title?: string; mimeType?: string }>;
    nextCursor?: string;
  }>;
  readResource(params: {
    uri: string;
  }): Promise<{ contents: Array<{ uri: string; text?: string; mimeType?: string }> }>;
  listResourceTemplates(): Promise<{
    resourceTemplates: Array<{ uriTemplate: string; name: string; mimeType?: string }>;
  }>;
  complete(params: {
    ref: { type: "ref/resource"; uri: string };
    argument: { name: string; value: string };
  }): Promise<{ completion: { values: string[]; total?: number; hasMore?: boolean } }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  getServerCapabilities(): Record<string, unknown> | undefined;
  close(): Promise<void>;
}

/** An elicitation answer a test client gives: what the person did. */
export type ElicitAnswer =
  | { action: "accept"; content: Record<string, string | number | boolean> }
  | {
      action: "decline" | "cancel";
    };

/**
 * The SDK client itself (v1, or v2 in either era). With `elicit`, it declares form-mode
 * elicitation and answers every `elicitation/create` with it, recording the requests.
 */
export async function connectSdkClient(
  kind: ClientKind,
  url: string,
  token?: string,
  elicit?: { answer: () => ElicitAnswer; asked: unknown[] },
  /** More request headers, e.g. `X-Workspace-Id`. */
  extraHeaders: Record<string, string> = {},
): Promise<SdkTestClient> {
  const headers: Record<string, string> = {
    ...extraHeaders,
    ...(token ? { Authorization: `Bearer ${token}` } : {}),
  };
  const endpoint = new URL("/mcp", url);
  const capabilities = elicit ? { elicitation: { form: {} } } : {};
  if (kind === "v1") {
    const client = new ClientV1({ name: "terreno-test-v1", version: "1.0.0" }, { capabilities });
    if (elicit) {
      const { ElicitRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        elicit.asked.push(request.params);
        return elicit.answer();
      });
    }
    await client.connect(new TransportV1(endpoint, { requestInit: { headers } }));
    return client as unknown as SdkTestClient;
  }
  const mode = kind === "v2-legacy" ? "legacy" : "auto";
  const client = new ClientV2(
    { name: "terreno-test-v2", version: "1.0.0" },
    { versionNegotiation: { mode }, capabilities },
  );
  if (elicit) {
    client.setRequestHandler("elicitation/create", async (request) => {
      elicit.asked.push(request.params);
      return elicit.answer();
    });
  }
  await client.connect(new TransportV2(endpoint, { requestInit: { headers } }));
  return client as unknown as SdkTestClient;
}
