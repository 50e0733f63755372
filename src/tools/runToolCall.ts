/**
 * THE tool-call runner, for every surface that calls tools (MCP `tools/call`, getMCPTools()
 * and the chat's tools, `POST /tools/<name>`): context → the one verdict (a tool the caller
 * may not see is `unseen`) → rate-limit spend → idempotency key (a retry replays the first
 * outcome) → argument validation → execute → audit of a refused write → error normalization
 * and report, inside the call's trace. Surfaces only translate the outcome into their own
 * shape. (REST's custom tool route keeps its `Idempotency-Key` answers in src/rest/idempotent.ts,
 * as every REST POST does.)
 *
 * The verdict is judged once per call, here: the tool then runs its operation's `run` step
 * (src/core/operations), which does not judge again, on the input checked once here.
 *
 * MCP methods that read records without running the tool's own step (`completion/complete`)
 * are internal calls: the same context, verdict, rate limit, observer and trace, with their
 * own `run` in place of the tool's.
 */
import { type ErrorCode, type FieldErrors, TerrenoError } from "../core/errors.js";
import { isWrite } from "../core/isWrite.js";
import { reportFailure } from "../core/logger.js";
import { normalizeError } from "../core/normalizeError.js";
import { callContext } from "../core/services.js";
import type { RequestContext, Surface, ToolCallTrace, User } from "../core/types.js";
import { type Refusal, refusalError, settleWorkspace, verdict } from "../core/verdict.js";
import { fingerprintOf, parseIdempotencyKey } from "../ops/idempotency.js";
import { executeTool, reportRefusedWrite, type ToolOutput } from "./executeTool.js";
import type { Services } from "./services.js";
import type { ToolDefinition } from "./toolDefinitions.js";
import { unknownTool } from "./toolErrors.js";
import { toolResource } from "./toolKinds.js";

type ToolSurface = Exclude<Surface, "internal">;

/**
 * What a surface gives the runner once: which surface it is, and the app's services. The
 * surface decides the rest: MCP and AI calls spend `toolCall` points and report their faults
 * to `services.logger`; a REST call spends `write` points only for a tool that writes
 * (`isWrite`) and its faults leave through the app's error middleware.
 */
export interface ToolRunnerOptions {
  surface: ToolSurface;
  services: Services;
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
  /**
   * The call's idempotency key (MCP's `_meta.idempotencyKey`, the chat's per tool-call key),
   * unchecked: the call runs once per caller and key, a retry replays its outcome (idempotent).
   * `field` names the key in a 400 for a malformed one.
   */
  idempotency?: { key: unknown; field: string };
  /** Set when the caller could not be resolved (the database is down): the call fails with it. */
  failure?: TerrenoError;
  /**
   * An internal call's own step, run instead of the tool's (after the same verdict and spend),
   * with the call's context: e.g. a completion reading what the list tool would list.
   */
  run?: (ctx: RequestContext) => Promise<ToolOutput>;
}

export type ToolCallOutcome =
  /** `replayed`: the output a first call with the same idempotency key kept. */
  | { status: "done"; output: ToolOutput; replayed?: true }
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
  return callContext(options.services, {
    user: call.user,
    transport: options.surface,
    headers: call.headers ?? {},
    ...(call.raw !== undefined ? { raw: call.raw } : {}),
    operation: call.operation ?? tool.name,
  });
}

/** Spends what `call` costs under the surface's limits; throws `rate_limited` when it is over. */
async function spendLimit(
  tool: ToolDefinition,
  call: ToolCall,
  options: ToolRunnerOptions,
): Promise<void> {
  const limits = options.services.rateLimits;
  if (!limits) return;
  const rest = options.surface === "rest";
  if (rest && !isWrite(tool)) return;
  await limits.consume({
    action: rest ? "write" : "toolCall",
    resource: toolResource(tool),
    user: call.user,
    ...(call.ip ? { ip: call.ip } : {}),
  });
}

/** What a tool call's key keeps: its output, or a failure a retry would meet again. */
type KeptOutcome =
  | { output: ToolOutput }
  | { error: { code: ErrorCode; detail: string; fields?: FieldErrors } };

/**
 * Runs `execute` once per caller and idempotency key (src/ops/idempotency.ts): a retry replays
 * the first outcome, an output or a failure below 500 (a rate limit aside, as on REST); a server
 * fault releases the key so a retry runs. A call without a key, or by no user, just runs.
 */
async function idempotently(
  tool: ToolDefinition,
  call: ToolCall,
  options: ToolRunnerOptions,
  execute: () => Promise<ToolOutput>,
): Promise<ToolCallOutcome> {
  const guard = options.services.idempotency;
  if (call.idempotency === undefined || !guard || !call.user) {
    return { status: "done", output: await execute() };
  }
  const key = parseIdempotencyKey(call.idempotency.key, call.idempotency.field);
  const start = await guard.begin({
    scope: "tool",
    caller: call.user.id,
    key,
    fingerprint: fingerprintOf({ tool: tool.name, args: call.args ?? null }),
  });
  if (start.state === "replay") {
    const kept = start.answer as KeptOutcome;
    if ("error" in kept)
      throw new TerrenoError(kept.error.code, kept.error.detail, kept.error.fields);
    return { status: "done", output: kept.output, replayed: true };
  }
  let output: ToolOutput;
  try {
    output = await execute();
  } catch (error) {
    const failure = normalizeError(error);
    if (failure.status < 500 && failure.code !== "rate_limited") {
      const { code, message, fields } = failure;
      await start.finish({ error: { code, detail: message, ...(fields ? { fields } : {}) } });
    } else {
      await start.release();
    }
    throw error;
  }
  await start.finish({ output } satisfies KeptOutcome);
  return { status: "done", output };
}

async function runSteps(
  tool: ToolDefinition,
  call: ToolCall,
  options: ToolRunnerOptions,
  trace: ToolCallTrace | undefined,
): Promise<ToolCallOutcome> {
  const failed = (error: unknown): ToolCallOutcome => {
    const terrenoError = normalizeError(error);
    if (options.surface !== "rest") {
      reportFailure(options.services.logger, terrenoError, {
        surface: options.surface,
        operation: tool.name,
      });
    }
    trace?.fail(terrenoError);
    return { status: "failed", error: terrenoError };
  };
  if (call.failure) return failed(call.failure);
  const ctx = contextOf(tool, call, options);
  trace?.context(ctx);
  try {
    await settleWorkspace(tool.access, ctx);
    const answer = await verdict(tool.access, ctx);
    if (answer !== "allowed") {
      const error = refusalError(answer, ctx);
      // A refused write is still a write attempt: the observer hears of it once.
      await reportRefusedWrite(tool, ctx, call.args, error);
      trace?.fail(error);
      return { status: "unseen", error, refusal: answer };
    }
    await spendLimit(tool, call, options);
    const execute = () => (call.run ? call.run(ctx) : executeTool(tool, ctx, call.args));
    return await idempotently(tool, call, options, execute);
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
  return options.services.tracer(
    { surface: options.surface, tool: tool.name, callId: call.callId },
    (trace) => runSteps(tool, call, options, trace),
  );
}
