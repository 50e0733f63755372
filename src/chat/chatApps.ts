/**
 * MCP Apps in the chat (`mcp: {apps: true}`): the page fetches a tool's view
 * (`GET /chat/apps/:tool`) to render it in a sandboxed frame, and a view's own tool calls come
 * back here (`POST /chat/app-calls`). Those calls run exactly as the model's do: the caller's own
 * tools (chatTools.ts), and a gated one is recorded as an approval request the server issued
 * (chatApprovals.ts) and runs only once the person approves that very call
 * (`POST /chat/app-calls/:toolCallId`), once.
 */
import { randomUUID } from "node:crypto";
import { RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import type { Tool } from "ai";
import type { Response } from "express";
import { notFound, TerrenoError, validationFailed } from "../core/errors.js";
import type { PlainObject, User } from "../core/types.js";
import { errorText } from "../tools/errorText.js";
import { canSeeTool } from "../tools/visibleTools.js";
import { checkAppCallInput } from "./appCallInput.js";
import { type ApprovalScope, claimApprovalAnswers, inputHash } from "./chatApprovals.js";
import type { ChatRequest } from "./chatAuth.js";
import { findOwnedConversation } from "./chatStore.js";
import { type ChatToolsOptions, chatTools } from "./chatTools.js";
import { ChatToolApproval } from "./models.js";
import type { ChatApp, ChatApproval } from "./types.js";

type ToolCallOptions = Parameters<NonNullable<Tool["execute"]>>[1];

export interface ChatAppsSettings {
  app: ChatApp;
  approval: ChatApproval;
  persist: boolean;
  docsTool?: ChatToolsOptions["docsTool"];
}

/** What MCP's `tools/call` answers, which is what a view's `callServerTool` expects. */
interface CallResult {
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: PlainObject;
  isError?: boolean;
}

function callResult(output: unknown): CallResult {
  const body = output as PlainObject | undefined;
  const error = body?.error as Parameters<typeof errorText>[0] | undefined;
  if (error && typeof error === "object" && "code" in error) {
    return { isError: true, content: [{ type: "text", text: errorText(error) }] };
  }
  return {
    content: [{ type: "text", text: JSON.stringify(output ?? null) }],
    structuredContent: (body ?? {}) as PlainObject,
  };
}

function stringField(body: PlainObject, name: string): string | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.length === 0 || value.length > 200) {
    throw validationFailed(`\`${name}\` must be a non-empty string.`, { [name]: "invalid" });
  }
  return value;
}

function bodyOf(req: ChatRequest): PlainObject {
  const body = req.body as unknown;
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw validationFailed("The body must be a JSON object.", {});
  }
  return body as PlainObject;
}

export function chatAppHandlers(settings: ChatAppsSettings) {
  const { app, persist } = settings;

  /** The conversation the call belongs to: an owned one (stored chats) or the useChat id. */
  async function scopeOf(user: User, body: PlainObject, what: string): Promise<ApprovalScope> {
    if (!persist) return { user, conversationKey: stringField(body, "chatId") ?? "none" };
    const conversationId = stringField(body, "conversationId");
    if (!conversationId) {
      throw validationFailed("`conversationId` is required.", { conversationId: "required" });
    }
    await findOwnedConversation(user, conversationId, what);
    return { user, conversationKey: conversationId };
  }

  function toolsFor(user: User, scope: ApprovalScope) {
    return chatTools({
      app,
      approval: settings.approval,
      ...(settings.docsTool ? { docsTool: settings.docsTool } : {}),
      user,
      approvalScope: () => scope,
      executed: new Map(),
    });
  }

  async function run(tool: Tool, toolCallId: string, input: unknown): Promise<CallResult> {
    const options = { toolCallId, messages: [] } as unknown as ToolCallOptions;
    return callResult(await tool.execute?.(input, options));
  }

  /** `GET /chat/apps`: `{data: [{toolName, uri}]}`, the views of the caller's own tools. */
  async function list(req: ChatRequest, res: Response): Promise<void> {
    const user = req.user as User;
    const data: Array<{ toolName: string; uri: string }> = [];
    for (const found of app.appViews?.all() ?? []) {
      const tool = app.services.tools.find((definition) => definition.name === found.toolName);
      if (tool && (await canSeeTool(tool, user)))
        data.push({ toolName: found.toolName, uri: found.uri });
    }
    res.json({ data });
  }

  /** `GET /chat/apps/:tool`: the view a tool's results are drawn in, for a caller who sees it. */
  async function view(req: ChatRequest, res: Response): Promise<void> {
    const user = req.user as User;
    const name = String(req.params.tool);
    const found = app.appViews?.forTool(name);
    const tool = app.services.tools.find((definition) => definition.name === name);
    if (!found || !tool || !(await canSeeTool(tool, user))) {
      throw notFound(`No app view for tool ${name}.`);
    }
    res.json({
      data: { toolName: name, uri: found.uri, mimeType: RESOURCE_MIME_TYPE, html: found.html() },
    });
  }

  /**
   * `POST /chat/app-calls` `{conversationId | chatId, name, arguments}`: a view's tool call. A
   * read runs at once (`{data: {result}}`); a gated call is recorded and answered 202 with
   * `{data: {approval: {toolCallId, approvalId, toolName, input}}}`, and nothing runs yet.
   */
  async function call(req: ChatRequest, res: Response): Promise<void> {
    const user = req.user as User;
    const body = bodyOf(req);
    const name = stringField(body, "name");
    if (!name) throw validationFailed("`name` is required.", { name: "required" });
    const scope = await scopeOf(user, body, "POST /chat/app-calls");
    const { tools, toolApproval } = await toolsFor(user, scope);
    const tool = tools[name];
    // A tool this caller does not have answers like one that does not exist.
    if (!tool?.execute) throw notFound(`No tool named ${name}.`);
    // Checked before it runs or is put to the person (appCallInput.ts).
    const definition = app.services.tools.find((candidate) => candidate.name === name);
    const input = await checkAppCallInput(name, tool, definition, body.arguments ?? {});
    const toolCallId = `app-${randomUUID()}`;
    if (!(name in toolApproval)) {
      res.json({ data: { result: await run(tool, toolCallId, input) } });
      return;
    }
    const approvalId = randomUUID();
    await ChatToolApproval.create({
      ownerId: user.id,
      conversationKey: scope.conversationKey,
      toolCallId,
      approvalId,
      toolName: name,
      inputHash: inputHash(input),
      inputJson: JSON.stringify(input),
    });
    res.status(202).json({ data: { approval: { toolCallId, approvalId, toolName: name, input } } });
  }

  /**
   * `POST /chat/app-calls/:toolCallId` `{conversationId | chatId, approvalId, approved}`: the
   * person's answer. It counts only for a request this server recorded for this user and
   * conversation, still unanswered (chatApprovals.ts); approved, the call runs once.
   */
  async function answer(req: ChatRequest, res: Response): Promise<void> {
    const user = req.user as User;
    const body = bodyOf(req);
    const approvalId = stringField(body, "approvalId");
    if (!approvalId)
      throw validationFailed("`approvalId` is required.", { approvalId: "required" });
    if (typeof body.approved !== "boolean") {
      throw validationFailed("`approved` must be true or false.", { approved: "invalid" });
    }
    const toolCallId = String(req.params.toolCallId);
    const scope = await scopeOf(user, body, "POST /chat/app-calls/:toolCallId");
    const record = await ChatToolApproval.findOne({ toolCallId }).lean<PlainObject>();
    const toolName = typeof record?.toolName === "string" ? record.toolName : undefined;
    const input = typeof record?.inputJson === "string" ? JSON.parse(record.inputJson) : undefined;
    await claimApprovalAnswers(scope, [
      { approvalId, approved: body.approved, toolCallId, ...(toolName ? { toolName, input } : {}) },
    ]);
    if (!body.approved || !toolName) {
      res.json({
        data: {
          result: {
            isError: true,
            content: [{ type: "text", text: "Denied by the person: nothing was run." }],
          },
        },
      });
      return;
    }
    const { tools } = await toolsFor(user, scope);
    const tool = tools[toolName];
    if (!tool?.execute) throw new TerrenoError("forbidden", `Tool ${toolName} is no longer yours.`);
    // Checked when it was recorded; again here for a request recorded before that check.
    const definition = app.services.tools.find((candidate) => candidate.name === toolName);
    const checked = await checkAppCallInput(toolName, tool, definition, input);
    res.json({ data: { result: await run(tool, toolCallId, checked) } });
  }

  return { list, view, call, answer };
}
