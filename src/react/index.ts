/**
 * `terreno-mcp/react`: React hooks for a terreno-mcp backend (needs `react` 19, `ai` 6,
 * `@ai-sdk/react` 3 and, for useMCPTools, `@modelcontextprotocol/client`; all optional peers).
 *
 * - `useTerrenoChat({api?, getToken, conversationId?, resume?})`: `useChat` against the chat plugin's
 *   `POST /chat`, with `Authorization: Bearer <token>`, the conversation id in the body (taken
 *   from `X-Conversation-Id` after the first reply), and `approve(toolCallId)` /
 *   `deny(toolCallId, reason?)` for tool calls that wait for approval (the chat re-sends by
 *   itself once every pending approval is answered), `resume` to reattach to a reply still
 *   streaming after a reload, and a `stop()` that tells the server to end the turn.
 * - `useMCPTools({url, getToken})`: the caller's MCP tools, listed with the official MCP client.
 *
 * No JSX: the hooks only use `useState`/`useEffect`/`useRef`/`useCallback`/`useMemo`.
 */
import { type UseChatHelpers, useChat } from "@ai-sdk/react";
import {
  type ChatInit,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from "ai";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";

export type TokenGetter = () => string | undefined | Promise<string | undefined>;

export interface UseTerrenoChatOptions<UI_MESSAGE extends UIMessage = UIMessage> {
  /** The chat plugin's route. Default `/chat`. */
  api?: string;
  /** The caller's bearer token (read before every request). */
  getToken: TokenGetter;
  /** Continue this stored conversation (else the server starts one and its id is kept). */
  conversationId?: string;
  /** The useChat id (one Chat instance per id). */
  id?: string;
  /** Initial messages (e.g. from `GET /chat/conversations/:id/messages`). */
  messages?: UI_MESSAGE[];
  /** Replaces the default fetch (which is also how the conversation id is read). */
  fetch?: typeof globalThis.fetch;
  onError?: ChatInit<UI_MESSAGE>["onError"];
  onFinish?: ChatInit<UI_MESSAGE>["onFinish"];
  /**
   * On mount, reattach to the reply still streaming in this chat (`GET {api}/{id}/stream`, the
   * AI SDK's resume): after a reload the rest of the reply arrives. Use it with the
   * conversation's id as `id`. Default false.
   */
  resume?: boolean;
}

export type UseTerrenoChatResult<UI_MESSAGE extends UIMessage = UIMessage> =
  UseChatHelpers<UI_MESSAGE> & {
    /** Grants the pending approval of this tool call (runs it on the re-send). */
    approve(toolCallId: string): Promise<void>;
    /** Refuses the pending approval of this tool call (nothing is written). */
    deny(toolCallId: string, reason?: string): Promise<void>;
    /** The conversation these messages are stored in, once known. */
    conversationId: string | undefined;
    /**
     * Stop: ends the reply here and tells the server (`DELETE {api}/{id}/stream`), which ends
     * the turn and stores it as stopped. (A client that only hangs up leaves the turn running,
     * so that a reload can reattach to it.)
     */
    stop(): Promise<void>;
  };

/** `{Authorization: "Bearer <token>"}`, or `{}` without a token. */
export async function authHeaders(getToken: TokenGetter): Promise<Record<string, string>> {
  const token = await getToken();
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/** The extra body fields of a chat request. */
export function chatBody(conversationId: string | undefined): Record<string, string> {
  return conversationId ? { conversationId } : {};
}

interface ApprovalPart {
  toolCallId?: string;
  state?: string;
  approval?: { id: string; approved?: boolean };
}

/** The approval id of the tool call `toolCallId` that is waiting for an answer (newest first). */
export function findApprovalId(
  messages: readonly UIMessage[],
  toolCallId: string,
): string | undefined {
  for (let m = messages.length - 1; m >= 0; m -= 1) {
    const parts = messages[m].parts as unknown as ApprovalPart[];
    for (const part of parts) {
      if (part.toolCallId === toolCallId && part.approval?.id) {
        return part.state === "approval-requested" ? part.approval.id : undefined;
      }
    }
  }
  return undefined;
}

export function useTerrenoChat<UI_MESSAGE extends UIMessage = UIMessage>(
  options: UseTerrenoChatOptions<UI_MESSAGE>,
): UseTerrenoChatResult<UI_MESSAGE> {
  const { api = "/chat", conversationId: initialConversationId } = options;
  const [conversationId, setConversationId] = useState(initialConversationId);
  // The transport is built once per api; it reads these refs at request time.
  const conversationRef = useRef(initialConversationId);
  const getTokenRef = useRef(options.getToken);
  const fetchRef = useRef(options.fetch);
  getTokenRef.current = options.getToken;
  fetchRef.current = options.fetch;

  useEffect(() => {
    conversationRef.current = initialConversationId;
    setConversationId(initialConversationId);
  }, [initialConversationId]);

  const transport = useMemo(
    () =>
      new DefaultChatTransport<UI_MESSAGE>({
        api,
        headers: () => authHeaders(getTokenRef.current),
        body: () => chatBody(conversationRef.current),
        fetch: async (input, init) => {
          const response = await (fetchRef.current ?? globalThis.fetch)(input, init);
          const id = response.headers.get("X-Conversation-Id");
          if (id && id !== conversationRef.current) {
            conversationRef.current = id;
            setConversationId(id);
          }
          return response;
        },
      }),
    [api],
  );

  const chat = useChat<UI_MESSAGE>({
    transport,
    ...(options.resume ? { resume: true } : {}),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    ...(options.id ? { id: options.id } : {}),
    ...(options.messages ? { messages: options.messages } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
    ...(options.onFinish ? { onFinish: options.onFinish } : {}),
  });

  const messagesRef = useRef(chat.messages);
  messagesRef.current = chat.messages;
  const { addToolApprovalResponse } = chat;

  const respond = useCallback(
    async (toolCallId: string, approved: boolean, reason?: string) => {
      const id = findApprovalId(messagesRef.current, toolCallId);
      if (!id) throw new Error(`No pending approval for tool call ${toolCallId}.`);
      await addToolApprovalResponse({ id, approved, ...(reason ? { reason } : {}) });
    },
    [addToolApprovalResponse],
  );
  const approve = useCallback((toolCallId: string) => respond(toolCallId, true), [respond]);
  const deny = useCallback(
    (toolCallId: string, reason?: string) => respond(toolCallId, false, reason),
    [respond],
  );

  const chatId = chat.id;
  const { stop: stopLocally } = chat;
  const stop = useCallback(async () => {
    const target = conversationRef.current ?? chatId;
    await stopLocally();
    const fetcher = fetchRef.current ?? globalThis.fetch;
    await fetcher(`${api}/${encodeURIComponent(target)}/stream`, {
      method: "DELETE",
      headers: await authHeaders(getTokenRef.current),
    }).catch(() => {
      // The reply has stopped here either way; the server's turn ends on its own.
    });
  }, [api, chatId, stopLocally]);

  return Object.assign({}, chat, { approve, deny, conversationId, stop });
}

export interface MCPToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

export interface UseMCPToolsOptions {
  /** The MCP endpoint, e.g. `https://api.example.com/mcp`. */
  url: string;
  getToken: TokenGetter;
}

export interface UseMCPToolsResult {
  tools: MCPToolInfo[];
  loading: boolean;
  error: Error | undefined;
  /** Lists the tools again. */
  refresh(): void;
}

/** Lists the caller's tools at `url` with the official MCP client (every page). */
export async function listMCPTools(url: string, getToken: TokenGetter): Promise<MCPToolInfo[]> {
  const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  const client = new Client({ name: "terreno-mcp-react", version: "1.0.0" });
  const headers = await authHeaders(getToken);
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(url, (globalThis as { location?: { href: string } }).location?.href),
      {
        requestInit: { headers },
      },
    ),
  );
  try {
    const tools: MCPToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined);
      tools.push(...(page.tools as MCPToolInfo[]));
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  } finally {
    await client.close().catch(() => {});
  }
}

export function useMCPTools(options: UseMCPToolsOptions): UseMCPToolsResult {
  const { url } = options;
  const getTokenRef = useRef(options.getToken);
  getTokenRef.current = options.getToken;
  const [tools, setTools] = useState<MCPToolInfo[]>([]);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    // `generation` is read so that refresh() re-runs this effect.
    void generation;
    let cancelled = false;
    setLoading(true);
    setError(undefined);
    listMCPTools(url, getTokenRef.current).then(
      (list) => {
        if (cancelled) return;
        setTools(list);
        setLoading(false);
      },
      (reason: unknown) => {
        if (cancelled) return;
        setError(reason instanceof Error ? reason : new Error(String(reason)));
        setLoading(false);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [url, generation]);

  const refresh = useCallback(() => setGeneration((n) => n + 1), []);
  return { tools, loading, error, refresh };
}
