/**
 * A tool's MCP App view inside its tool card: the server's generated HTML (GET /chat/apps/:tool)
 * in a sandboxed `srcdoc` frame (scripts, no same origin), spoken to through ext-apps' host
 * bridge (`AppBridge`). The view's own tool calls (a ticked checkbox) go to POST /chat/app-calls,
 * which runs reads at once and answers a write with an approval request the server recorded;
 * the card asks the person, and only their Approve runs the call (once), as for the model's.
 */
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
import { createContext, useContext, useEffect, useRef, useState } from "react";
import { apiJson } from "../api.js";
import { JsonBlock } from "./JsonBlock.js";

/** Which chat the page is in: where a view's calls and their approvals belong. */
export interface AppHost {
  chatId: string;
  conversationId: string | undefined;
  /** A view's write ran: data may have changed. */
  onChanged(): void;
}

export const AppHostContext = createContext<AppHost | undefined>(undefined);

interface CallResult {
  [key: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

interface Approval {
  toolCallId: string;
  approvalId: string;
  toolName: string;
  input: unknown;
}

interface View {
  toolName: string;
  uri: string;
  html: string;
}

let catalog: Promise<Set<string>> | undefined;
const views = new Map<string, Promise<View>>();

/** The view of `toolName`, if it has one (the list of tools with views is fetched once). */
async function viewOf(toolName: string): Promise<View | undefined> {
  catalog ??= apiJson<Array<{ toolName: string }>>("/chat/apps").then(
    (rows) => new Set(rows.map((row) => row.toolName)),
    () => new Set<string>(),
  );
  if (!(await catalog).has(toolName)) return undefined;
  let view = views.get(toolName);
  if (!view) {
    view = apiJson<View>(`/chat/apps/${encodeURIComponent(toolName)}`);
    views.set(toolName, view);
  }
  return view;
}

/** The chat's tool output as MCP's tools/call result, which a view expects. */
function resultOf(output: unknown): CallResult {
  const error = (output as { error?: { code?: string; detail?: string } } | null)?.error;
  if (error && typeof error === "object") {
    return { isError: true, content: [{ type: "text", text: error.detail ?? "The call failed." }] };
  }
  return {
    content: [{ type: "text", text: JSON.stringify(output) }],
    structuredContent: output as Record<string, unknown>,
  };
}

function failed(error: unknown): CallResult {
  const text = error instanceof Error ? error.message : String(error);
  return { isError: true, content: [{ type: "text", text }] };
}

interface Props {
  toolName: string;
  input: unknown;
  output: unknown;
}

export function McpAppFrame({ toolName, input, output }: Props) {
  const host = useContext(AppHostContext);
  const hostRef = useRef(host);
  hostRef.current = host;
  const frame = useRef<HTMLIFrameElement>(null);
  const [view, setView] = useState<View>();
  const [height, setHeight] = useState(160);
  const [pending, setPending] = useState<Approval & { settle(result: CallResult): void }>();
  // What the bridge hands the view once it is ready: this call's input and result.
  const first = useRef({ input, output });

  useEffect(() => {
    let live = true;
    viewOf(toolName).then(
      (found) => live && setView(found),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [toolName]);

  useEffect(() => {
    const target = frame.current?.contentWindow;
    if (!view || !target) return;
    const where = () => {
      const current = hostRef.current;
      return current?.conversationId
        ? { conversationId: current.conversationId }
        : { chatId: current?.chatId };
    };
    const bridge = new AppBridge(
      null,
      { name: "terreno-example", version: "0.1.0" },
      { serverTools: {} },
    );
    bridge.oncalltool = async (params) => {
      try {
        const answer = await apiJson<{ result?: CallResult; approval?: Approval }>(
          "/chat/app-calls",
          {
            method: "POST",
            body: JSON.stringify({ ...where(), name: params.name, arguments: params.arguments }),
          },
        );
        if (answer.result) return answer.result;
        const approval = answer.approval;
        if (!approval) return failed("The server neither ran nor held the call.");
        // Held for the person: the card asks, and their answer settles the view's call.
        return await new Promise<CallResult>((settle) => setPending({ ...approval, settle }));
      } catch (error) {
        return failed(error);
      }
    };
    bridge.onsizechange = ({ height: wanted }) => {
      if (wanted) setHeight(Math.min(Math.ceil(wanted) + 2, 640));
    };
    bridge.oninitialized = () => {
      const { input: args, output: result } = first.current;
      void bridge.sendToolInput({ arguments: (args ?? {}) as Record<string, unknown> });
      void bridge.sendToolResult(resultOf(result));
    };
    void bridge.connect(new PostMessageTransport(target, target));
    return () => {
      void bridge.close();
    };
  }, [view]);

  async function answer(approved: boolean): Promise<void> {
    if (!pending) return;
    const { settle, toolCallId, approvalId } = pending;
    setPending(undefined);
    try {
      const current = hostRef.current;
      const where = current?.conversationId
        ? { conversationId: current.conversationId }
        : { chatId: current?.chatId };
      const { result } = await apiJson<{ result: CallResult }>(
        `/chat/app-calls/${encodeURIComponent(toolCallId)}`,
        { method: "POST", body: JSON.stringify({ ...where, approvalId, approved }) },
      );
      settle(result);
      if (approved && !result.isError) current?.onChanged();
    } catch (error) {
      settle(failed(error));
    }
  }

  if (!view) return null;
  return (
    <div className="mcp-app">
      <iframe
        ref={frame}
        title={`${toolName} app`}
        className="mcp-app-frame"
        sandbox="allow-scripts"
        srcDoc={view.html}
        style={{ height }}
      />
      {pending ? (
        <fieldset className="approval" aria-label={`Approve ${pending.toolName}?`}>
          <legend>The app asks to run {pending.toolName}, which changes your data. Run it?</legend>
          <JsonBlock label="Input" value={pending.input} />
          <button type="button" onClick={() => void answer(true)}>
            Approve
          </button>
          <button type="button" className="danger" onClick={() => void answer(false)}>
            Deny
          </button>
        </fieldset>
      ) : null}
    </div>
  );
}
