/**
 * Chat telemetry: one ChatTelemetry row per `POST /chat` (tokens, steps, tool calls, latency,
 * success or error code), and `GET /chat/telemetry`, the admins' aggregates over recent rows.
 */
import type { Response } from "express";
import { authorize } from "../core/authorize.js";
import { TerrenoError } from "../core/errors.js";
import { runOperation } from "../core/index.js";
import type { Logger } from "../core/logger.js";
import { presentDocument } from "../core/present.js";
import type { PlainObject, User } from "../core/types.js";
import { chatContext, telemetryResource } from "./chatAccess.js";
import type { ChatRequest } from "./chatAuth.js";
import { ChatTelemetry } from "./models.js";

/** The row's `errorCode`: a short code that aggregates well, not the error's message. */
export function errorCodeOf(error: unknown): string {
  if (error instanceof TerrenoError) return error.code;
  if (error instanceof Error && error.name) return error.name;
  return "llm_failed";
}

type StepsWithToolCalls = ReadonlyArray<{
  toolCalls: ReadonlyArray<{ toolCallId: string; toolName: string }>;
}>;

/**
 * The names of the tool calls of a request: those that ran (including approved ones from the
 * history, which no step of this request calls) and those the steps called, once per call id.
 */
export function toolCallNames(executed: Map<string, string>, steps: StepsWithToolCalls): string[] {
  const calls = new Map(executed);
  for (const step of steps)
    for (const call of step.toolCalls) calls.set(call.toolCallId, call.toolName);
  return [...calls.values()];
}

export interface ChatTelemetryContext {
  logger: Logger;
  user: User;
  conversationId?: string;
  modelId: string;
  /** `Date.now()` when the request came in: the row's `latencyMs` counts from it. */
  startedAt: number;
}

/**
 * A recorder for one request: one row per request, whichever of streamText's onFinish, onError
 * and onAbort comes first; later calls do nothing. Storing is not awaited and never throws: a
 * telemetry write must not hold up or fail the chat.
 */
export function telemetryRecorder(context: ChatTelemetryContext): (fields: PlainObject) => void {
  let recorded = false;
  return (fields) => {
    if (recorded) return;
    recorded = true;
    const row = {
      ownerId: context.user.id,
      ...(context.conversationId ? { conversationId: context.conversationId } : {}),
      modelId: context.modelId,
      latencyMs: Date.now() - context.startedAt,
      ...fields,
    };
    void storeRow(context.logger, row);
  };
}

async function storeRow(logger: Logger, row: PlainObject): Promise<void> {
  try {
    await ChatTelemetry.create(row);
  } catch (error) {
    logger.error({ err: error }, "chat: could not store telemetry");
  }
}

/** `GET /chat/telemetry?limit=`: aggregates over the latest `window` rows, and the latest `limit`. */
export function telemetryHandler(window: number) {
  return async (req: ChatRequest, res: Response): Promise<void> => {
    // The one verdict on the telemetry rows' `list` (chatAccess.ts): admins only, 403 otherwise.
    const ctx = chatContext(req.user, "GET /chat/telemetry");
    const view = await runOperation(() => authorize(telemetryResource, ctx, "list"));
    const limit = Math.min(Math.max(Number(req.query.limit) || 50, 1), 500);
    const rows = await ChatTelemetry.find({})
      .sort({ createdAt: -1 })
      .limit(window)
      .lean<PlainObject[]>();
    const count = rows.length;
    const sum = (field: string) =>
      rows.reduce((total, row) => total + (Number(row[field]) || 0), 0);
    const successes = rows.filter((row) => row.success === true).length;
    const toolCalls = rows.reduce(
      (total, row) => total + (Array.isArray(row.toolCalls) ? row.toolCalls.length : 0),
      0,
    );
    res.json({
      data: {
        window: count,
        count,
        successRate: count ? successes / count : 0,
        inputTokens: sum("inputTokens"),
        outputTokens: sum("outputTokens"),
        avgLatencyMs: count ? sum("latencyMs") / count : 0,
        toolCalls,
        recent: rows.slice(0, limit).map((row) => presentDocument(view, row)),
      },
    });
  };
}
