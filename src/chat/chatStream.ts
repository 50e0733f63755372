/**
 * `POST /chat`: one turn of a conversation as an AI SDK 7 UI message stream. It stores the
 * user's message, runs the model with the caller's tools (chatTools.ts), streams the answer,
 * stores the assistant's message when the stream ends and records one telemetry row.
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
} from "ai";
import type { Response } from "express";
import { validationFailed } from "../core/errors.js";
import type { User } from "../core/types.js";
import {
  type ApprovalScope,
  approvalAnswers,
  claimApprovalAnswers,
  recordApprovalRequests,
} from "./chatApprovals.js";
import type { ChatRequest } from "./chatAuth.js";
import { parseChatBody } from "./chatBody.js";
import { createConversation, findConversation, saveMessage } from "./chatStore.js";
import { errorCodeOf, telemetryRecorder, toolCallNames } from "./chatTelemetry.js";
import { type ChatToolsOptions, chatTools } from "./chatTools.js";
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
  docsTool?: ChatToolsOptions["docsTool"];
}

export function chatStreamHandler(settings: ChatStreamSettings) {
  const { app: terreno, model, persist } = settings;
  // Telemetry names the model with its provider (`openai.chat:gpt-4o-mini`), once per plugin.
  const modelId = typeof model === "string" ? model : `${model.provider}:${model.modelId}`;

  return async function chat(req: ChatRequest, res: Response): Promise<void> {
    const user = req.user as User;
    const startedAt = Date.now();
    const body = parseChatBody(req.body, settings.maxMessageLength);
    // Nothing is written until the request's approval answers are checked: a refused answer
    // leaves no conversation, message or tool run behind.
    const existing = persist ? await findConversation(user, body) : undefined;
    let conversationId = existing;
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
      approvalScope,
      redactor,
      executed,
    });
    let messages: ModelMessage[];
    try {
      // System messages come from the server only, never from the client's history.
      const history = body.messages.filter((message) => message.role !== "system");
      messages = await convertToModelMessages(history, { tools });
    } catch (error) {
      throw validationFailed(
        `The messages could not be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const existingKey = keyOf(existing);
    await claimApprovalAnswers(
      existingKey === undefined ? undefined : { user, conversationKey: existingKey },
      approvalAnswers(messages),
    );
    if (persist && !conversationId) conversationId = await createConversation(user, body);
    const last = body.messages.at(-1);
    // Stored before the model runs, so that the question is kept even if the answer fails.
    if (persist && conversationId && last?.role === "user") {
      await saveMessage(user, conversationId, last);
    }

    // A client that hangs up stops the model and its tool loop.
    const abort = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) abort.abort();
    });
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
      generateMessageId: randomUUID,
      // Where a client finds the id to send as `conversationId` next turn: useTerrenoChat reads
      // the header; a page on plain useChat can read the assistant message's metadata.
      messageMetadata: ({ part }) =>
        part.type === "start" && conversationId ? { conversationId } : undefined,
      // The client gets a generic text; the error itself goes to the log (streamText's onError).
      onError: () => "The assistant failed; please try again.",
      onEnd: async ({ responseMessage }) => {
        if (!persist || !conversationId) return;
        try {
          await saveMessage(user, conversationId, responseMessage);
        } catch (error) {
          terreno.logger.error({ err: error }, "chat: could not store the assistant message");
        }
      },
    });
    void pipeUIMessageStreamToResponse({
      response: res,
      stream,
      ...(conversationId ? { headers: { "X-Conversation-Id": conversationId } } : {}),
    });
  };
}
