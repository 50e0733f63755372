/**
 * One stateless endpoint for both protocol eras, answering JSON in both: 2026-07-28
 * requests go to the SDK's per-request handler; 2025-era requests (`initialize` and
 * friends) get a fresh stateless transport with JSON responses (the SDK's own legacy
 * fallback would answer them with SSE). The one exception is a 2025-era call that asks
 * the person first (legacyAsks.ts): it is answered on an SSE stream that carries the
 * question, and the server lives until that stream ends.
 */
import {
  type ClientCapabilities,
  createMcpHandler,
  isJSONRPCResponse,
  isLegacyRequest,
  type JSONRPCResponse,
  type McpHandlerRequestOptions,
  type McpRequestContext,
  type Server,
} from "@modelcontextprotocol/server";
import { TerrenoError } from "../core/errors.js";
import { type Logger, reportFailure } from "../core/logger.js";
import type { AnswerRelay } from "./answerRelay.js";
import { type McpCaller, principalOf } from "./caller.js";
import { jsonRpcErrorResponse } from "./jsonRpcError.js";
import { LegacyAsks, sessionCapabilities, sessionFor } from "./legacyAsks.js";
import { bindMcpRequestState, type McpRequestState, mcpRequestState } from "./requestState.js";
import { armToolsListSlot, spliceToolsList } from "./toolsListReply.js";

/**
 * What a per-request server is built for; on the 2025 era, `legacyClient` is what the
 * client declared at `initialize`, as far as its session says (legacyAsks.ts).
 */
export type ServerFactoryContext = McpRequestContext & { legacyClient?: ClientCapabilities };
export type ServerFactory = (ctx: ServerFactoryContext) => Server;

export interface DualEraHandlerOptions {
  onerror?: (error: Error) => void;
  /** Whether a `tools/call` of this tool may ask the person first (`mcp.confirm`). */
  asksFirst?: (toolName: string) => boolean;
  /** Where 2025-era answers heard by another instance are found (answerRelay.ts). */
  answerRelay?: AnswerRelay;
  /**
   * Charges a 2025-era answer POST to its caller (the tool-call points, as `tools/call`);
   * throws `rate_limited` when the caller has none left.
   */
  chargeAnswer?: (caller: McpCaller) => Promise<void>;
  /** Told about server faults met while taking an answer (the relay's database away). */
  logger?: Logger;
}

/** The JSON-RPC error the SDK wrote, under the refusal's own HTTP status and headers. */
function withHttpRefusal(response: Response, refusal: TerrenoError): Response {
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(refusal.headers ?? {})) headers.set(name, value);
  return new Response(response.body, { status: refusal.status, headers });
}

/** The response with extra headers. */
function withHeaders(response: Response, extra: Record<string, string>): Response {
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(extra)) headers.set(name, value);
  return new Response(response.body, { status: response.status, headers });
}

/** The streamed response, calling `done` once when its body ends or its reader goes away. */
function endingWith(response: Response, done: () => void): Response {
  const reader = response.body?.getReader();
  if (!reader) {
    done();
    return response;
  }
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = await reader.read();
      if (!chunk.done) return controller.enqueue(chunk.value);
      controller.close();
      done();
    },
    cancel(reason) {
      done();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

/** Whether the body calls a tool that may ask first. */
function callAsking(body: unknown, asksFirst: (toolName: string) => boolean): boolean {
  const call = body as { method?: unknown; params?: { name?: unknown } } | null;
  return (
    call?.method === "tools/call" &&
    typeof call.params?.name === "string" &&
    asksFirst(call.params.name)
  );
}

export function createDualEraHandler(factory: ServerFactory, options: DualEraHandlerOptions = {}) {
  const { onerror, asksFirst, answerRelay, chargeAnswer, logger } = options;
  // The default responseMode, "auto", answers with one JSON body unless a handler emits a
  // message related to the request (progress, logging) before its result. Ours never do, so
  // every 2026-07-28 answer is JSON. `responseMode: "json"` would force the same but makes the
  // SDK print a console.warn (about dropping mid-call notifications) on every build().
  const modern = createMcpHandler(factory, { legacy: "reject", onerror });
  const asks = new LegacyAsks(answerRelay);

  /**
   * `state`: the request's caller (resolveMcpCaller.ts), bound to `request` for the server
   * factory, which the SDK hands it as `requestInfo`.
   */
  async function fetch(
    request: Request,
    options?: McpHandlerRequestOptions,
    state?: McpRequestState,
  ): Promise<Response> {
    if (state) bindMcpRequestState(request, state);
    // tools/list replies carry the catalog serialized once (toolsListReply.ts).
    const slot = armToolsListSlot(options?.parsedBody, state);
    const response = await dispatch(request, options);
    if (slot) return spliceToolsList(response, slot);
    const refusal = state?.refusal;
    return refusal ? withHttpRefusal(response, refusal) : response;
  }

  async function dispatch(request: Request, options?: McpHandlerRequestOptions): Promise<Response> {
    const body = options?.parsedBody;
    if (!(await isLegacyRequest(request, body))) return modern.fetch(request, options);
    const session = asksFirst ? request.headers.get("mcp-session-id") : null;
    const state = mcpRequestState(request);
    const principal = principalOf(state?.caller);
    if (isJSONRPCResponse(body)) return takeAnswer(body, session, principal, state);
    const legacyClient = sessionCapabilities(session);
    const stream = Boolean(legacyClient && asksFirst && callAsking(body, asksFirst));
    const server = factory({
      era: "legacy",
      ...(options?.authInfo && { authInfo: options.authInfo }),
      requestInfo: request,
      ...(legacyClient && { legacyClient }),
    } as ServerFactoryContext);
    const transport = asks.transport(session, principal, stream);
    const done = () => {
      void transport.close().catch(() => {});
      void server.close().catch(() => {});
    };
    await server.connect(transport);
    let response: Response;
    try {
      response = await transport.handleRequest(request, {
        ...(options?.authInfo && { authInfo: options.authInfo }),
        ...(body !== undefined && { parsedBody: body }),
      });
    } catch (error) {
      done();
      throw error;
    }
    if (stream) return endingWith(response, done);
    done();
    const newSession = asksFirst ? sessionFor(body) : undefined;
    return newSession ? withHeaders(response, { "Mcp-Session-Id": newSession }) : response;
  }

  /**
   * A POSTed JSON-RPC response: the answer to a question the server asked (the server asks no
   * other). 202 when taken; otherwise refused (the 2025 transport's HTTP error, with a
   * JSON-RPC error without id) and kept nowhere. Every one spends the caller's points first.
   */
  async function takeAnswer(
    body: JSONRPCResponse,
    session: string | null,
    principal: string,
    state: McpRequestState | undefined,
  ): Promise<Response> {
    let refusal: TerrenoError | undefined;
    try {
      if (state && chargeAnswer) await chargeAnswer(state.caller);
      refusal = await asks.answer(body, session, principal);
    } catch (error) {
      if (!(error instanceof TerrenoError)) throw error;
      refusal = error;
    }
    if (!refusal) return new Response(null, { status: 202 });
    state?.refuse(refusal);
    if (logger) reportFailure(logger, refusal, { surface: "mcp", operation: "answer" });
    return jsonRpcErrorResponse(refusal);
  }

  return { fetch, close: () => modern.close() };
}
