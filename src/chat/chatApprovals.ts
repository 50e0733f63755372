/**
 * Approvals the server issued: the one rule for running a gated tool call. Every approval request
 * the model's stream carries is recorded in MongoDB (user, conversation, call id, tool, hash of
 * the canonical input) before the client sees it; an answer counts only when it matches such a
 * record, still unanswered, from the same user and conversation, with the same tool and input; an
 * approved call runs once, ever (the unique call id, and `ranAt` set once).
 */
import { createHash } from "node:crypto";
import type { ModelMessage, StreamTextTransform, TextStreamPart, ToolSet, UIMessage } from "ai";
import canonicalize from "canonicalize";
import type { Request, Response } from "express";
import { TerrenoError, validationFailed } from "../core/errors.js";
import type { Logger } from "../core/logger.js";
import type { PlainObject, User } from "../core/types.js";
import type { ChatRequest } from "./chatAuth.js";
import { ChatToolApproval } from "./models.js";

/** SHA-256 of the input's canonical JSON (RFC 8785), so key order never matters. */
export function inputHash(input: unknown): string {
  return createHash("sha256")
    .update(canonicalize(input ?? null) ?? "null")
    .digest("hex");
}

/** Where a chat request's approvals live: the user and the conversation (or useChat id). */
export interface ApprovalScope {
  user: User;
  conversationKey: string;
}

/**
 * A streamText transform that records each `tool-approval-request` before passing it on. One
 * that cannot be recorded (a call id already used) is replaced by an error: a request the server
 * has no record of could never be approved.
 */
export function recordApprovalRequests(
  scope: () => ApprovalScope,
  logger: Logger,
): StreamTextTransform<ToolSet> {
  return () =>
    new TransformStream<TextStreamPart<ToolSet>, TextStreamPart<ToolSet>>({
      async transform(part, controller) {
        if (part.type !== "tool-approval-request") {
          controller.enqueue(part);
          return;
        }
        const { user, conversationKey } = scope();
        const call = part.toolCall;
        try {
          await ChatToolApproval.create({
            ownerId: user.id,
            conversationKey,
            toolCallId: call.toolCallId,
            approvalId: part.approvalId,
            toolName: call.toolName,
            inputHash: inputHash(call.input),
            inputJson: JSON.stringify(call.input ?? null),
          });
          controller.enqueue(part);
        } catch (error) {
          logger.error({ err: error }, "chat: could not record an approval request");
          controller.enqueue({
            type: "error",
            error: new Error(`The approval request for tool call ${call.toolCallId} failed.`),
          });
        }
      },
    });
}

/** An answer in the client's history that the AI SDK would act on in this request. */
export interface ApprovalAnswer {
  approvalId: string;
  approved: boolean;
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
}

/**
 * The approval answers streamText would act on (the same reading as the AI SDK's
 * `collectToolApprovals`): those in the last message when it is a tool message, whose call has
 * no result yet (a denial's `execution-denied` result comes with it).
 */
export function approvalAnswers(messages: readonly ModelMessage[]): ApprovalAnswer[] {
  const last = messages.at(-1);
  if (last?.role !== "tool") return [];
  const calls = new Map<string, { toolName: string; input: unknown }>();
  const requests = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== "assistant" || typeof message.content === "string") continue;
    for (const part of message.content) {
      if (part.type === "tool-call") calls.set(part.toolCallId, part);
      if (part.type === "tool-approval-request") requests.set(part.approvalId, part.toolCallId);
    }
  }
  const results = new Map<string, PlainObject>();
  for (const part of last.content) {
    if (part.type === "tool-result") results.set(part.toolCallId, part.output as PlainObject);
  }
  const answers: ApprovalAnswer[] = [];
  for (const part of last.content) {
    if (part.type !== "tool-approval-response") continue;
    const toolCallId = requests.get(part.approvalId);
    const result = toolCallId ? results.get(toolCallId) : undefined;
    if (result && (part.approved || result.type !== "execution-denied")) continue;
    const call = toolCallId ? calls.get(toolCallId) : undefined;
    answers.push({
      approvalId: part.approvalId,
      approved: part.approved,
      ...(toolCallId ? { toolCallId } : {}),
      ...(call ? { toolName: call.toolName, input: call.input } : {}),
    });
  }
  return answers;
}

function refused(answer: ApprovalAnswer, why: string): TerrenoError {
  const call = answer.toolCallId
    ? `tool call ${answer.toolCallId}`
    : `approval ${answer.approvalId}`;
  return new TerrenoError("forbidden", `The answer to ${call} was refused: ${why} Nothing ran.`);
}

/**
 * Checks every answer against the recorded requests and marks them answered, or throws (403 for
 * an answer to a request this server never asked of this user in this conversation, or for other
 * input; 409 for a request already answered) before anything runs.
 */
export async function claimApprovalAnswers(
  scope: ApprovalScope | undefined,
  answers: readonly ApprovalAnswer[],
): Promise<void> {
  if (answers.length === 0) return;
  const records: PlainObject[] = [];
  for (const answer of answers) {
    const record = answer.toolCallId
      ? await ChatToolApproval.findOne({ toolCallId: answer.toolCallId }).lean<PlainObject>()
      : null;
    if (
      !scope ||
      !record ||
      String(record.ownerId) !== scope.user.id ||
      record.conversationKey !== scope.conversationKey ||
      record.approvalId !== answer.approvalId
    ) {
      throw refused(answer, "this server asked no such approval of you in this conversation.");
    }
    if (record.toolName !== answer.toolName || record.inputHash !== inputHash(answer.input)) {
      throw refused(answer, "its tool or input differs from the one you were asked to approve.");
    }
    if (record.state === "dropped") {
      throw new TerrenoError(
        "conflict",
        `Tool call ${answer.toolCallId} was left unanswered when the conversation went on; it can no longer run.`,
      );
    }
    if (record.state !== "pending") {
      throw new TerrenoError(
        "conflict",
        `Tool call ${answer.toolCallId} was already ${record.state}; it runs at most once.`,
      );
    }
    records.push(record);
  }
  for (const [index, answer] of answers.entries()) {
    const claimed = await ChatToolApproval.updateOne(
      { _id: records[index]?._id, state: "pending" },
      { $set: { state: answer.approved ? "approved" : "denied", answeredAt: new Date() } },
    );
    if (claimed.modifiedCount !== 1) {
      throw new TerrenoError("conflict", `Tool call ${answer.toolCallId} was already answered.`);
    }
  }
}

/**
 * A new user message leaves the requests still unanswered before it behind: the AI SDK's
 * `convertToModelMessages` drops them from what the model sees, so no answer to them can ever
 * reach a tool. They are marked `dropped`, no longer listed as waiting and refused if answered
 * later. Only calls in the messages count: an app view's held calls are not part of the chat.
 */
export async function dropUnansweredRequests(
  scope: ApprovalScope,
  messages: readonly UIMessage[],
): Promise<void> {
  const lastUser = messages.findLastIndex((message) => message.role === "user");
  const toolCallIds: string[] = [];
  for (const message of messages.slice(0, Math.max(0, lastUser))) {
    for (const part of message.parts as ReadonlyArray<{ state?: string; toolCallId?: unknown }>) {
      if (part.state === "approval-requested" && typeof part.toolCallId === "string") {
        toolCallIds.push(part.toolCallId);
      }
    }
  }
  if (toolCallIds.length === 0) return;
  await ChatToolApproval.updateMany(
    {
      ownerId: scope.user.id,
      conversationKey: scope.conversationKey,
      toolCallId: { $in: toolCallIds },
      state: "pending",
    },
    { $set: { state: "dropped", answeredAt: new Date() } },
  );
}

/**
 * A deleted conversation's requests still waiting are marked `dropped`: nothing can answer them
 * any more, and they must not fill the caller's list. The rows stay (their call ids never run).
 */
export async function dropConversationRequests(conversationKey: string): Promise<void> {
  await ChatToolApproval.updateMany(
    { conversationKey, state: "pending" },
    { $set: { state: "dropped", answeredAt: new Date() } },
  );
}

/**
 * Called by a gated tool right before it runs: true once for an approved, recorded call with
 * this very input; false for anything else (never approved, denied, other input, already run).
 */
export async function consumeApproval(
  scope: ApprovalScope,
  call: { toolCallId: string; toolName: string; input: unknown },
): Promise<boolean> {
  const result = await ChatToolApproval.updateOne(
    {
      toolCallId: call.toolCallId,
      ownerId: scope.user.id,
      conversationKey: scope.conversationKey,
      toolName: call.toolName,
      inputHash: inputHash(call.input),
      state: "approved",
      ranAt: { $exists: false },
    },
    { $set: { ranAt: new Date() } },
  );
  return result.modifiedCount === 1;
}

/**
 * `GET /chat/approvals[?conversationId=…]`: the caller's own requests still waiting for an
 * answer, oldest first (at most 100), in one conversation when it is named.
 */
export async function listHeldApprovals(req: Request, res: Response): Promise<void> {
  const user = (req as ChatRequest).user as User;
  const named = req.query.conversationId;
  if (named !== undefined && (typeof named !== "string" || named === "" || named.length > 200)) {
    throw validationFailed("Invalid query.", { conversationId: "must be a conversation id" });
  }
  const filter: PlainObject = { ownerId: user.id, state: "pending" };
  if (typeof named === "string") filter.conversationKey = named;
  const rows = await ChatToolApproval.find(filter)
    .sort({ createdAt: 1, _id: 1 })
    .limit(100)
    .lean<PlainObject[]>();
  res.json({
    data: rows.map((row) => ({
      id: String(row._id),
      conversationId: row.conversationKey,
      toolCallId: row.toolCallId,
      approvalId: row.approvalId,
      toolName: row.toolName,
      input: typeof row.inputJson === "string" ? JSON.parse(row.inputJson) : undefined,
      createdAt: row.createdAt,
    })),
  });
}
