/**
 * THE tool-call runner, for every surface that calls tools (MCP `tools/call`, getMCPTools()
 * and the chat's tools, `POST /tools/<name>`): context → the one verdict (a tool the caller
 * may not see is `unseen`) → rate-limit spend → argument validation → execute → audit of a
 * refused write → error normalization and report, inside the call's trace. Surfaces only
 * translate the outcome into their own shape.
 *
 * The verdict is judged once per call: the operation the tool runs asks the same rule with
 * the same context and gets this answer back (src/core/verdict.ts `judgeCall`).
 */
import type { TerrenoError } from "../core/errors.js";
import { isWrite } from "../core/isWrite.js";
import { type Logger, reportFailure } from "../core/logger.js";
import { normalizeError } from "../core/normalizeError.js";
import type { OperationObserver } from "../core/observe.js";
import type { HiddenFieldsLookup, RequestContext, Surface, User } from "../core/types.js";
import { judgeCall, type Refusal, refusalError } from "../core/verdict.js";
import type { RateLimits } from "../ops/rateLimit.js";
import { type ToolCallTrace, traceToolCall } from "../ops/telemetry.js";
import { executeTool, reportRefusedWrite, type ToolOutput } from "./executeTool.js";
import type { ToolDefinition } from "./toolDefinitions.js";
import { unknownTool } from "./toolErrors.js";
import { toolResource } from "./toolKinds.js";

type ToolSurface = Exclude<Surface, "internal">;

/** What a surface gives the runner once: who it is and where its calls are reported and counted. */
export interface ToolRunnerOptions {
  surface: ToolSurface;
  /** Where server faults are reported; absent when the surface reports them itself (REST). */
  logger?: Logger;
  /** Told about every write (TerrenoApp's audit observer). */
  observer?: OperationObserver;
  /** The app's routers' hidden fields (RequestContext.hiddenOf). */
  hiddenOf?: HiddenFieldsLookup;
  /**
   * The app's rate limits, and what a call spends: `toolCall` points for every call (MCP,
   * AI), or REST `write` points for a call of a tool that writes (`isWrite`).
   */
  rateLimit?: { limits: Pick<RateLimits, "consume">; spend: "toolCall" | "write" };
}

/** One call, as the surface received it. */
export interface ToolCall {
  /** The definition the name resolves to; undefined when no tool has that name. */
  tool: ToolDefinition | undefined;
  name: string;
  args: unknown;
  user?: User;
  headers?: Readonly<Record<string, string | undefined>>;
  /** The transport's native request (REST's Express request), for handlers' escape hatches. */
  raw?: unknown;
  /** The route the call came through, when it is not the tool's name (REST). */
  operation?: string;
  /** The client address, counted by the rate limits when the call came over HTTP. */
  ip?: string;
  /** The AI SDK's tool call id. */
  callId?: string;
  /** Set when the caller could not be resolved (the database is down): the call fails with it. */
  failure?: TerrenoError;
}

export type ToolCallOutcome =
  | { status: "done"; output: ToolOutput }
  /**
   * No tool has this name, or the verdict refused this caller (`refusal`): to the caller the
   * tool does not exist. `error` is the refusal's own error (or `unknown_tool`) for surfaces
   * that offered the tool anyway and answer why (AI tools bound to no user).
   */
  | { status: "unseen"; error: TerrenoError; refusal?: Refusal }
  /** Everything else that stopped the call, as a TerrenoError from the one error table. */
  | { status: "failed"; error: TerrenoError };

function contextOf(
  tool: ToolDefinition,
  call: ToolCall,
  options: ToolRunnerOptions,
): RequestContext {
  return {
    user: call.user,
    transport: options.surface,
    headers: call.headers ?? {},
    ...(call.raw !== undefined ? { raw: call.raw } : {}),
    operation: call.operation ?? tool.name,
    ...(options.observer ? { observer: options.observer } : {}),
    ...(options.hiddenOf ? { hiddenOf: options.hiddenOf } : {}),
  };
}

/**
 * Spends what `call` costs under the surface's limits; throws `rate_limited` when it is over.
 * Exported for the MCP methods that read records without running a tool (completions).
 */
export async function spendLimit(
  tool: ToolDefinition,
  call: ToolCall,
  options: ToolRunnerOptions,
): Promise<void> {
  const { rateLimit } = options;
  if (!rateLimit) return;
  if (rateLimit.spend === "write" && !isWrite(tool)) return;
  await rateLimit.limits.consume({
    action: rateLimit.spend,
    resource: toolResource(tool),
    user: call.user,
    ...(call.ip ? { ip: call.ip } : {}),
  });
}

async function runSteps(
  tool: ToolDefinition,
  call: ToolCall,
  options: ToolRunnerOptions,
  trace: ToolCallTrace | undefined,
): Promise<ToolCallOutcome> {
  const failed = (error: unknown): ToolCallOutcome => {
    const terrenoError = normalizeError(error);
    if (options.logger) {
      reportFailure(options.logger, terrenoError, {
        surface: options.surface,
        operation: tool.name,
      });
    }
    trace?.fail(terrenoError);
    return { status: "failed", error: terrenoError };
  };
  if (call.failure) return failed(call.failure);
  const ctx = contextOf(tool, call, options);
  try {
    const answer = await judgeCall(tool.access, ctx);
    if (answer !== "allowed") {
      const error = refusalError(answer, ctx);
      // A refused write is still a write attempt: the observer hears of it once.
      await reportRefusedWrite(tool, ctx, call.args, error);
      trace?.fail(error);
      return { status: "unseen", error, refusal: answer };
    }
    await spendLimit(tool, call, options);
    return { status: "done", output: await executeTool(tool, ctx, call.args) };
  } catch (error) {
    return failed(error);
  }
}

/** Runs one tool call through every step; never throws. */
export async function runToolCall(
  options: ToolRunnerOptions,
  call: ToolCall,
): Promise<ToolCallOutcome> {
  const { tool } = call;
  if (!tool) return { status: "unseen", error: unknownTool(call.name) };
  if (options.surface === "rest") return runSteps(tool, call, options, undefined);
  return traceToolCall(
    { surface: options.surface, tool: tool.name, callId: call.callId },
    (trace) => runSteps(tool, call, options, trace),
  );
}
