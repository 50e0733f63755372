/**
 * The execute step of a tool call (src/tools/runToolCall.ts runs it, after the verdict and
 * the rate limit): check the call's parameters, then run the `run` step of the same core
 * operation REST uses, on the view the verdict judged: no second verdict.
 * Each input is validated once: list, read and delete parameters and a discovery tool's input
 * here (the tool's compiled validator), before any operation runs; create and update bodies
 * by the core, against the view schema the tool advertises; an action's or custom tool's
 * input by the core, with its zod schema.
 */
import { type FieldErrors, type TerrenoError, validationFailed } from "../core/errors.js";
import { runOperation } from "../core/index.js";
import { assertNoForbiddenKeys } from "../core/inputSafety.js";
import { isWrite } from "../core/isWrite.js";
import { assertObjectId } from "../core/loadDocument.js";
import { observeRefusal } from "../core/observe.js";
import { runCreate } from "../core/operations/create.js";
import { CUSTOM_TOOL_TARGET } from "../core/operations/customTool.js";
import { runList } from "../core/operations/list.js";
import { runRead } from "../core/operations/read.js";
import { runRemove } from "../core/operations/remove.js";
import { runUpdate } from "../core/operations/update.js";
import { viewFor } from "../core/resource.js";
import type { PlainObject, RequestContext } from "../core/types.js";
import { UNREADABLE_BODY, unreadableBody } from "../core/validateBody.js";
import type { ToolDefinition } from "./toolDefinitions.js";

export type ToolOutput = PlainObject;

/** One wording for every surface; the fields name each path once (errorText lists them). */
function invalidArguments(toolName: string, fields: FieldErrors): TerrenoError {
  return validationFailed(`Invalid arguments for ${toolName}.`, fields);
}

function argumentsOf(tool: ToolDefinition, args: unknown): PlainObject {
  // REST's custom-tool route passes the core's marker for a body it could not read (415).
  if (args === UNREADABLE_BODY) throw unreadableBody();
  if (args === undefined || args === null) return {};
  if (typeof args !== "object" || Array.isArray(args)) {
    throw invalidArguments(tool.name, { "(root)": "must be an object" });
  }
  return args as PlainObject;
}

/** The CRUD tools that name one document by `id`, as REST names it in the path. */
const ID_METHODS: ReadonlySet<string> = new Set(["read", "update", "delete"]);

function checkArguments(tool: ToolDefinition, args: unknown): PlainObject {
  const input = argumentsOf(tool, args);
  assertNoForbiddenKeys(input, "arguments");
  // A malformed id names no document: the 404 REST gives `/todos/not-an-id`, before the other
  // arguments are looked at, as REST reads the path before the body (one answer per case).
  if (tool.kind !== "handler" && ID_METHODS.has(tool.method) && typeof input.id === "string") {
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
  const object =
    typeof args === "object" && args !== null && !Array.isArray(args) ? (args as PlainObject) : {};
  const { id, ...body } = object;
  if (tool.kind !== "handler") {
    const known = tool.method === "create" ? { body: args } : { id, body };
    await observeRefusal(tool.resource, ctx, tool.method, known, error);
  } else if (tool.action && tool.resource) {
    const known = tool.action.scope === "instance" ? { id, body } : { body: args };
    await observeRefusal(tool.resource, ctx, tool.action.name, known, error);
  } else if (tool.custom) {
    await observeRefusal(CUSTOM_TOOL_TARGET, ctx, tool.name, { body: args }, error);
  }
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
    if (tool.kind === "handler") return tool.handler(input, ctx);
    const { resource } = tool;
    // The view the runner's verdict judged (`tool.access` was built on it).
    const view = viewFor(resource, ctx.transport);
    switch (tool.method) {
      case "list": {
        const { filter, sort, page, limit, populate } = input;
        return {
          ...(await runList(resource, view, ctx, {
            filter: filter as PlainObject | undefined,
            sort,
            page,
            limit,
            populate,
          })),
        };
      }
      case "read":
        return {
          data: await runRead(resource, view, ctx, { id: input.id, populate: input.populate }),
        };
      case "create":
        return { data: await runCreate(resource, view, ctx, { body: input }) };
      case "update": {
        const { id, ...body } = input;
        if (typeof id !== "string") throw invalidArguments(tool.name, { id: "is required" });
        return { data: await runUpdate(resource, view, ctx, { id, body }) };
      }
      case "delete":
        return { data: await runRemove(resource, view, ctx, { id: input.id }) };
    }
  });
}
