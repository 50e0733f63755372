/**
 * The execute step of a tool call (src/tools/runToolCall.ts runs it, after the verdict and
 * the rate limit): check the call's parameters, then run the `run` step of the same core
 * operation REST uses, on the view the verdict judged: no second verdict.
 * Each input is validated once: list, read and delete parameters and a discovery tool's input
 * here (the tool's compiled validator), before any operation runs; create and update bodies
 * by the core, against the view schema the tool advertises; an action's or custom tool's
 * input by the core, with its zod schema.
 */
import { runOperation } from "../core/index.js";
import { assertNoForbiddenKeys } from "../core/inputSafety.js";
import { isWrite } from "../core/isWrite.js";
import { assertObjectId } from "../core/loadDocument.js";
import { observeRefusal } from "../core/observe.js";
import type { PlainObject, RequestContext } from "../core/types.js";
import { UNREADABLE_BODY, unreadableBody } from "../core/validateBody.js";
import type { ToolDefinition } from "./toolDefinitions.js";
import { invalidArguments } from "./toolErrors.js";
import { kindOf } from "./toolKinds.js";

export type ToolOutput = PlainObject;

function argumentsOf(tool: ToolDefinition, args: unknown): PlainObject {
  // REST's custom-tool route passes the core's marker for a body it could not read (415).
  if (args === UNREADABLE_BODY) throw unreadableBody();
  if (args === undefined || args === null) return {};
  if (typeof args !== "object" || Array.isArray(args)) {
    throw invalidArguments(tool.name, { "(root)": "must be an object" });
  }
  return args as PlainObject;
}

function checkArguments(tool: ToolDefinition, args: unknown): PlainObject {
  const input = argumentsOf(tool, args);
  assertNoForbiddenKeys(input, "arguments");
  // A malformed id names no document: the 404 REST gives `/todos/not-an-id`, before the other
  // arguments are looked at, as REST reads the path before the body (one answer per case).
  if (kindOf(tool).takesDocumentId(tool) && typeof input.id === "string") {
    assertObjectId(input.id);
  }
  const checked = tool.validate?.(input);
  if (checked && !checked.ok) throw invalidArguments(tool.name, checked.fields);
  return input;
}

/**
 * A write tool refused before it reached its operation (by the verdict, or on its
 * arguments) is still a write attempt: the observer hears of it once, as the operation
 * would have told it.
 */
export async function reportRefusedWrite(
  tool: ToolDefinition,
  ctx: RequestContext,
  args: unknown,
  error: unknown,
): Promise<void> {
  if (!isWrite(tool)) return;
  const write = kindOf(tool).attemptedWrite(tool, args);
  if (write) await observeRefusal(write.target, ctx, write.action, write.known, error);
}

/** Validates the arguments and runs the tool's operation for `ctx`'s caller, already judged. */
export function executeTool(
  tool: ToolDefinition,
  ctx: RequestContext,
  args: unknown,
): Promise<ToolOutput> {
  return runOperation(async () => {
    let input: PlainObject;
    try {
      input = checkArguments(tool, args);
    } catch (error) {
      await reportRefusedWrite(tool, ctx, args, error);
      throw error;
    }
    return kindOf(tool).run(tool, input, ctx);
  });
}
