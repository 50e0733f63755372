/**
 * Runs a tool for a caller: check the call's parameters, then call the same core operation
 * REST uses. Bodies are validated once, by the core. Shared by the MCP endpoint and the AI
 * SDK adapter.
 */
import {
  type FieldErrors,
  TerrenoError,
  unauthenticated,
  validationFailed,
} from "../core/errors.js";
import { create, list, read, remove, runOperation, update } from "../core/index.js";
import { assertNoForbiddenKeys } from "../core/inputSafety.js";
import { isWrite } from "../core/isWrite.js";
import { observeRefusal } from "../core/observe.js";
import type { PlainObject, RequestContext } from "../core/types.js";
import type { ToolDefinition } from "./toolDefinitions.js";
import { canSeeTool } from "./visibleTools.js";

export type ToolOutput = PlainObject;

/** One wording for every surface; the fields name each path once (errorText lists them). */
export function invalidArguments(toolName: string, fields: FieldErrors): TerrenoError {
  return validationFailed(`Invalid arguments for ${toolName}.`, fields);
}

function argumentsOf(tool: ToolDefinition, args: unknown): PlainObject {
  if (args === undefined || args === null) return {};
  if (typeof args !== "object" || Array.isArray(args)) {
    throw invalidArguments(tool.name, { "(root)": "must be an object" });
  }
  return args as PlainObject;
}

function checkArguments(tool: ToolDefinition, args: unknown): PlainObject {
  const input = argumentsOf(tool, args);
  assertNoForbiddenKeys(input, "arguments");
  const checked = tool.validate?.(input);
  if (checked && !checked.ok) throw invalidArguments(tool.name, checked.fields);
  return input;
}

/** A write tool refused on its arguments is still a write attempt: the observer hears of it once. */
async function reportRefusedWrite(
  tool: ToolDefinition,
  ctx: RequestContext,
  args: unknown,
  error: unknown,
) {
  if (tool.kind === "handler" || !isWrite(tool)) return;
  const { id, ...body } =
    typeof args === "object" && args !== null && !Array.isArray(args) ? (args as PlainObject) : {};
  const known = tool.method === "create" ? { body: args } : { id, body };
  await observeRefusal(tool.resource, ctx, tool.method, known, error);
}

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
    if (tool.kind === "handler") {
      // Resource tools are judged by the core's authorize step; handler tools by the same
      // visibility rule that lists them, here too, so no adapter can call one it may not see.
      if (!(await canSeeTool(tool, ctx.user))) {
        if (!ctx.user) throw unauthenticated();
        throw new TerrenoError(
          "unknown_tool",
          `Unknown tool: ${tool.name}. Call tools/list for the available tools.`,
        );
      }
      return tool.handler(input, ctx);
    }
    const { resource } = tool;
    switch (tool.method) {
      case "list": {
        const { filter, sort, page, limit, populate } = input;
        return {
          ...(await list(resource, ctx, {
            filter: filter as PlainObject | undefined,
            sort,
            page,
            limit,
            populate,
          })),
        };
      }
      case "read":
        return { data: await read(resource, ctx, { id: input.id, populate: input.populate }) };
      case "create":
        return { data: await create(resource, ctx, { body: input }) };
      case "update": {
        const { id, ...body } = input;
        if (typeof id !== "string") throw invalidArguments(tool.name, { id: "is required" });
        return { data: await update(resource, ctx, { id, body }) };
      }
      case "delete":
        return { data: await remove(resource, ctx, { id: input.id }) };
    }
  });
}
