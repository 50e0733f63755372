/**
 * The tools one chat request offers the model: the caller's own MCP tools (getMCPTools: the
 * permissions and hidden fields of /mcp), plus `search_docs`, and AI SDK 7's call-level
 * `toolApproval` that holds the gated ones for the user's approval.
 */
import { createHash } from "node:crypto";
import type { Tool, ToolSet } from "ai";
import { TerrenoError } from "../core/errors.js";
import { isWrite } from "../core/isWrite.js";
import type { PlainObject, User } from "../core/types.js";
import { WORKSPACE_HEADER, workspaceAccess } from "../core/workspace.js";
import { errorOutput } from "../tools/aiSdk/toolOutput.js";
import { aiToolSet } from "../tools/aiSdk/toolSet.js";
import { toolsVisibleTo } from "../tools/visibleTools.js";
import { type ApprovalScope, consumeApproval } from "./chatApprovals.js";
import type { Redactor } from "./redact.js";
import {
  type DocHit,
  SEARCH_DOCS_TOOL_NAME,
  type SearchDocsContext,
  type SearchDocsInput,
} from "./searchDocs.js";
import type { ChatApp, ChatApproval } from "./types.js";

type ToolCallOptions = Parameters<NonNullable<Tool["execute"]>>[1];

/** A chat tool call's idempotency key: a hash, so any conversation key and call id fit. */
function chatCallKey(conversationKey: string, toolCallId: string): string {
  const hash = createHash("sha256").update(JSON.stringify([conversationKey, toolCallId]));
  return `chat:${hash.digest("hex")}`;
}

function needsApproval(
  approval: ChatApproval,
  tool: { method?: string; annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean } },
): boolean {
  if (approval === "none" || !isWrite(tool)) return false;
  // MCP's defaults: a write is destructive unless it says otherwise.
  return approval !== "destructive" || tool.annotations?.destructiveHint !== false;
}

export interface ChatToolsOptions {
  app: ChatApp;
  approval: ChatApproval;
  /** `searchDocsTool(options.docs)`, built once per plugin. */
  docsTool?: Tool<SearchDocsInput, { data: DocHit[] }, SearchDocsContext>;
  /** The address the request came to: `search_docs` answers name it (`http://host:port`). */
  serverOrigin?: string;
  user: User;
  /** The workspace the request names (`X-Workspace-Id`), for an app with workspaces. */
  workspaceId?: string;
  /**
   * Where the request's approvals are recorded (the conversation is known once the request is
   * checked, before any tool runs): a gated call runs only for an approval recorded there.
   */
  approvalScope: () => ApprovalScope;
  /** Fills in the placeholders the model saw before a tool gets its input. */
  redactor?: Redactor;
  /** Collects the tool calls that run, by call id, for telemetry. */
  executed: Map<string, string>;
}

/** What streamText gets: the tools, and `toolApproval` naming the ones that wait for the user. */
export interface ChatToolSet {
  tools: ToolSet;
  toolApproval: Record<string, "user-approval">;
}

export async function chatTools(options: ChatToolsOptions): Promise<ChatToolSet> {
  const { app, approval, docsTool, user, approvalScope, redactor, executed, serverOrigin } =
    options;
  // The caller's own tools, as getMCPTools({app, user}) gives them (the tools /mcp lists).
  const { workspaceId } = options;
  const workspace = app.services.workspaces
    ? workspaceAccess(app.services.workspaces, {
        user,
        headers: workspaceId ? { [WORKSPACE_HEADER]: workspaceId } : {},
      })
    : undefined;
  const base = aiToolSet(await toolsVisibleTo(app.services.tools, user, workspace), {
    user,
    services: app.services,
    // A tool call runs at most once per conversation and call id, across reloads, resumes and
    // instances: its idempotency key (src/ops/idempotency.ts), claimed by a unique insert.
    callKey: (toolCallId) => chatCallKey(approvalScope().conversationKey, toolCallId),
    ...(workspaceId ? { workspaceId } : {}),
  });
  const definitions = new Map(app.services.tools.map((def) => [def.name, def]));
  const tools: ToolSet = {};
  const toolApproval: Record<string, "user-approval"> = {};
  for (const [name, original] of Object.entries(base)) {
    const gated = needsApproval(
      approval,
      definitions.get(name) ??
        (original as { metadata?: { annotations?: PlainObject } }).metadata ??
        {},
    );
    const execute = original.execute;
    if (!execute) continue;
    if (gated) toolApproval[name] = "user-approval";
    tools[name] = {
      ...original,
      execute: async (input: unknown, callOptions: ToolCallOptions) => {
        const realInput = redactor ? redactor.restoreDeep(input) : input;
        // The second lock of chatApprovals.ts: the request's answers were checked before the
        // model ran; this call runs only if its very input was approved, and only once.
        const call = { toolCallId: callOptions.toolCallId, toolName: name, input: realInput };
        if (gated && !(await consumeApproval(approvalScope(), call))) {
          return errorOutput(
            new TerrenoError(
              "forbidden",
              `Tool call ${callOptions.toolCallId} has no approval of this input, or already ran.`,
            ),
          );
        }
        executed.set(callOptions.toolCallId, name);
        return execute(realInput as PlainObject, callOptions);
      },
    } as Tool;
  }
  // Read-only: never gated, whatever the approval mode.
  if (docsTool && !(SEARCH_DOCS_TOOL_NAME in tools)) {
    const search = docsTool.execute;
    tools[SEARCH_DOCS_TOOL_NAME] = {
      ...docsTool,
      execute: (input: unknown, callOptions: ToolCallOptions) => {
        executed.set(callOptions.toolCallId, SEARCH_DOCS_TOOL_NAME);
        const realInput = redactor ? redactor.restoreDeep(input) : input;
        const context: SearchDocsContext = serverOrigin ? { serverOrigin } : {};
        return search?.(realInput as SearchDocsInput, { ...callOptions, context });
      },
    } as Tool;
  }
  return { tools, toolApproval };
}
