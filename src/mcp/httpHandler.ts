/**
 * One stateless endpoint for both protocol eras, answering JSON in both: 2026-07-28
 * requests go to the SDK's per-request handler; 2025-era requests (`initialize` and
 * friends) get a fresh stateless transport with JSON responses (the SDK's own legacy
 * fallback would answer them with SSE).
 */
import {
  createMcpHandler,
  isLegacyRequest,
  type McpHandlerRequestOptions,
  type McpRequestContext,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { TerrenoError } from "../core/errors.js";
import type { McpCaller } from "./caller.js";
import { armToolsListSlot, spliceToolsList } from "./toolsListReply.js";

export type ServerFactory = (ctx: McpRequestContext) => Server;

/** The JSON-RPC error the SDK wrote, under the refusal's own HTTP status and headers. */
function withHttpRefusal(response: Response, refusal: TerrenoError): Response {
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(refusal.headers ?? {})) headers.set(name, value);
  return new Response(response.body, { status: refusal.status, headers });
}

export function createDualEraHandler(factory: ServerFactory, onerror?: (error: Error) => void) {
  // The default responseMode, "auto", answers with one JSON body unless a handler emits a
  // message related to the request (progress, logging) before its result. Ours never do, so
  // every 2026-07-28 answer is JSON. `responseMode: "json"` would force the same but makes the
  // SDK print a console.warn (about dropping mid-call notifications) on every build().
  const modern = createMcpHandler(factory, { legacy: "reject", onerror });

  async function fetch(request: Request, options?: McpHandlerRequestOptions): Promise<Response> {
    // tools/list replies carry the catalog serialized once (toolsListReply.ts).
    const slot = armToolsListSlot(options?.parsedBody, options?.authInfo);
    const response = await dispatch(request, options);
    if (slot) return spliceToolsList(response, slot);
    const refusal = (options?.authInfo?.extra?.caller as McpCaller | undefined)?.httpRefusal;
    return refusal ? withHttpRefusal(response, refusal) : response;
  }

  async function dispatch(request: Request, options?: McpHandlerRequestOptions): Promise<Response> {
    if (!(await isLegacyRequest(request, options?.parsedBody))) {
      return modern.fetch(request, options);
    }
    const server = factory({
      era: "legacy",
      ...(options?.authInfo && { authInfo: options.authInfo }),
      requestInfo: request,
    } as McpRequestContext);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, {
        ...(options?.authInfo && { authInfo: options.authInfo }),
        ...(options?.parsedBody !== undefined && { parsedBody: options.parsedBody }),
      });
    } finally {
      void transport.close().catch(() => {});
      void server.close().catch(() => {});
    }
  }

  return { fetch, close: () => modern.close() };
}
