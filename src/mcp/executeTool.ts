/**
 * Runs a tool for a caller: validate the arguments against the tool's schema, then call the
 * same core operation REST uses. Shared by the MCP endpoint and the AI SDK adapter.
 */

import {
  type FieldErrors,
  type TerrenoError,
  unauthenticated,
  validationFailed,
} from "../core/errors.js";
import { create, list, read, remove, runOperation, update } from "../core/index.js";
import type { PlainObject, RequestContext } from "../core/types.js";
import type { ToolDefinition } from "./toolDefinitions.js";

export type ToolOutput = PlainObject;

/** One wording for every surface; the fields name each path once (errorText lists them). */
export function invalidArguments(toolName: string, fields: FieldErrors): TerrenoError {
  return validationFailed(`Invalid arguments for ${toolName}.`, fields);
}

export function executeTool(
  tool: ToolDefinition,
  ctx: RequestContext,
  args: unknown,
): Promise<ToolOutput> {
  return runOperation(async () => {
    // Tools serve anonymous callers only where the model opts in, whatever REST allows.
    if (!ctx.user && !tool.resource.options.allowAnonymous) {
      throw unauthenticated(`${tool.name} needs an authenticated caller.`);
    }
    const input = (args ?? {}) as PlainObject;
    const checked = tool.validate(input);
    if (!checked.ok) throw invalidArguments(tool.name, checked.fields);
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
        return { data: await update(resource, ctx, { id, body }) };
      }
      case "delete":
        return { data: await remove(resource, ctx, { id: input.id }) };
    }
  });
}
