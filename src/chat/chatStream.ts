/**
 * `POST /chat`: one turn of a conversation as an AI SDK 7 UI message stream. It stores the
 * user's message, stores the assistant's turn and runs the model with the caller's tools
 * (chatTools.ts); the answer streams to the client and, durably, to the turn's buffer and stored
 * message (chatTurns.ts). One telemetry row per request.
 */
import { randomUUID } from "node:crypto";
import {
  convertToModelMessages,
  isStepCount,
  type LanguageModel,
  type ModelMessage,
  pipeUIMessageStreamToResponse,
  streamText,
  toUIMessageStream,
  type UIMessage,
} from "ai";
import type { Response } from "express";
import { validationFailed } from "../core/errors.js";
import type { User } from "../core/types.js";
import { setRequestWorkspace } from "../http/requestWorkspace.js";
import {
  type ApprovalScope,
  approvalAnswers,
  claimApprovalAnswers,
  dropUnansweredRequests,
  recordApprovalRequests,
} from "./chatApprovals.js";
import type { ChatRequest } from "./chatAuth.js";
import { parseChatBody } from "./chatBody.js";
import type { ChatFiles } from "./chatFiles.js";
import { createConversation, findConversation, saveMessage } from "./chatStore.js";
import { errorCodeOf, telemetryRecorder, toolCallNames } from "./chatTelemetry.js";
import { type ChatToolsOptions, chatTools } from "./chatTools.js";
import type { ChatTurns } from "./chatTurns.js";
import { chatWorkspace } from "./chatWorkspace.js";
import { Redactor, redactModelMessage } from "./redact.js";
import { restoreTransform } from "./restoreStream.js";
import type { ChatApp, ChatApproval } from "./types.js";

/** chatPlugin's options with their defaults applied. */
export interface ChatStreamSettings {
  app: ChatApp;
  model: LanguageModel;
  systemPrompt: () => string;
  maxSteps: number;
  approval: ChatApproval;
  persist: boolean;
  redactPII: boolean;
  /** Characters of text a user message may have (chatBody.ts). */
  maxMessageLength: number;
  /** Inline files only, or remote ones through the fence (`remoteFiles`, chatFiles.ts). */
  files: ChatFiles;
  docsTool?: ChatToolsOptions["docsTool"];
  /** The plugin's durable turns (used when `persist`). */
  turns: ChatTurns;
}

export function chatStreamHandler(settings: ChatStreamSettings) {
  const { app: terreno, model, persist } = settings;
  // Telemetry names the model with its provider (`openai.chat:gpt-4o-mini`), once per plugin.
  const modelId = typeof model === "string" ? model : `${model.provider}:${model.modelId}`;

  return async function chat(req: ChatRequest, res: Response): Promise<void> {
    const user = req.user as User;
    const startedAt = Date.now();
    const body = parseChatBody(req.body, {
      maxMessageLength: settings.maxMessageLength,
      files: settings.files.urls,
    });
    // Nothing is written until the request's approval answers are checked: a refused answer
    // leaves no conversation, message or tool run behind.
    const existing = persist ? await findConversation(user, body) : undefined;
    // A continued conversation acts in the workspace it was started in (409 if asked elsewhere).
    const workspace = await chatWorkspace(terreno, req, user, existing);
    const actedIn = existing?.workspaceId ?? workspace.store;
    if (actedIn) setRequestWorkspace(req, () => actedIn);
    let conversationId = existing?.id;
    const keyOf = (id: string | undefined) => (persist ? id : (body.id ?? "none"));
    const approvalScope = (): ApprovalScope => ({
      user,
      conversationKey: keyOf(conversationId) ?? "",
    });
    const redactor = settings.redactPII ? new Redactor() : undefined;
    /** Tool calls run in this request (including approved ones from the history), by call id. */
    const executed = new Map<string, string>();
    const { tools, toolApproval } = await chatTools({
      app: terreno,
      approval: settings.approval,
      docsTool: settings.docsTool,
      serverOrigin: `${req.protocol}://${req.get("host") ?? "localhost"}`,
      user,
      ...(workspace.workspaceId ? { workspaceId: workspace.workspaceId } : {}),
      approvalScope,
      redactor,
      executed,
    });
    let messages: ModelMessage[];
    try {
      // System messages come from the server only, never from the client's history.
      // An assistant turn stopped before it said anything is stored with no parts: nothing to send.
      const history = body.messages.filter(
        (message) =>
          message.role !== "system" &&
          !(message.role === "assistant" && message.parts.length === 0),
      );
      messages = await convertToModelMessages(history, { tools });
    } catch (error) {
      throw validationFailed(
        `The messages could not be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    // A user's remote files (only with `remoteFiles`), fetched through the fence before anything
    // is written; the model gets their bytes.
    const fetched = await settings.files.fetchAll(body.remoteFiles, terreno.logger);
    const existingKey = keyOf(existing?.id);
    await claimApprovalAnswers(
      existingKey === undefined ? undefined : { user, conversationKey: existingKey },
      approvalAnswers(messages),
    );
    if (persist && !conversationId)
      conversationId = await createConversation(user, body, workspace.store);
    const last = body.messages.at(-1);
    // Stored before the model runs, so that the question is kept even if the answer fails.
    if (persist && conversationId && last?.role === "user") {
      await saveMessage(user, conversationId, last);
    }
    if (last?.role === "user") await dropUnansweredRequests(approvalScope(), body.messages);

    // The answer: a new assistant message, or the one an approval continues (useChat resends it).
    const continued = last?.role === "assistant" ? last : undefined;
    const responseId = continued?.id || randomUUID();
    const start: UIMessage = continued ?? { id: responseId, role: "assistant", parts: [] };
    const abort = new AbortController();
    // A durable turn (chatTurns.ts) is stored before the model runs and outlives its client: a
    // reload reattaches to it; only a Stop ends it early. Without storage, a client that hangs
    // up stops the model and its tool loop.
    const turn =
      persist && conversationId
        ? await settings.turns.begin(user, conversationId, start)
        : undefined;
    if (!turn) {
      res.on("close", () => {
        if (!res.writableFinished) abort.abort();
      });
    }
    const record = telemetryRecorder({
      logger: terreno.logger,
      user,
      conversationId,
      modelId,
      startedAt,
    });

    const result = streamText({
      model,
      instructions: settings.systemPrompt(),
      messages,
      tools,
      // Gated writes stop at a tool-approval-request, recorded by recordApprovalRequests; the
      // next turn runs one only for an answer claimApprovalAnswers matched to its record.
      toolApproval,
      stopWhen: isStepCount(settings.maxSteps),
      abortSignal: abort.signal,
      // The SDK never fetches a URL by itself (chatFiles.ts).
      experimental_download: settings.files.download(fetched),
      // The model sees placeholders for PII; the stream to the user has the real values back,
      // and so do the recorded approval requests (after restoreTransform).
      ...(redactor
        ? {
            prepareStep: ({ messages: stepMessages }: { messages: ModelMessage[] }) => ({
              messages: stepMessages.map((message) => redactModelMessage(redactor, message)),
            }),
          }
        : {}),
      experimental_transform: [
        ...(redactor ? [restoreTransform(redactor)] : []),
        recordApprovalRequests(approvalScope, terreno.logger),
      ],
      onEnd: ({ usage, steps }) => {
        record({
          inputTokens: usage.inputTokens ?? 0,
          outputTokens: usage.outputTokens ?? 0,
          steps: steps.length,
          toolCalls: toolCallNames(executed, steps),
          success: true,
        });
      },
      onError: ({ error }) => {
        terreno.logger.error({ err: error }, "chat: the language model request failed");
        record({
          success: false,
          errorCode: errorCodeOf(error),
          steps: 0,
          toolCalls: toolCallNames(executed, []),
        });
      },
      onAbort: ({ steps }) => {
        record({
          success: false,
          errorCode: "aborted",
          steps: steps.length,
          toolCalls: toolCallNames(executed, steps),
        });
      },
    });

    const stream = toUIMessageStream({
      stream: result.stream,
      tools,
      originalMessages: body.messages,
      generateMessageId: () => responseId,
      // Where a client finds the id to send as `conversationId` next turn: useTerrenoChat reads
      // the header; a page on plain useChat can read the assistant message's metadata.
      messageMetadata: ({ part }) =>
        part.type === "start" && conversationId ? { conversationId } : undefined,
      // The client gets a generic text; the error itself goes to the log (streamText's onError).
      onError: () => "The assistant failed; please try again.",
    });
    let toClient = stream;
    if (turn && conversationId) {
      const [client, store] = stream.tee();
      toClient = client;
      void settings.turns.record({
        stream: store,
        user,
        conversationId,
        turn,
        start,
        abort,
        logger: terreno.logger,
      });
    }
    void pipeUIMessageStreamToResponse({
      response: res,
      stream: toClient,
      ...(conversationId ? { headers: { "X-Conversation-Id": conversationId } } : {}),
    });
  };
}
