/**
 * What differs between the tool kinds (src/tools/toolDefinitions.ts `ToolKind`), answered once
 * per kind in one table the compiler checks is complete: the runner (executeTool.ts,
 * runToolCall.ts), the MCP endpoint and its record links read it, instead of guessing a tool's
 * kind from which fields it has.
 */

import { callerView } from "../core/callerView.js";
import type { WriteTarget } from "../core/observe.js";
import { runCreate } from "../core/operations/create.js";
import { CUSTOM_TOOL_TARGET } from "../core/operations/customTool.js";
import { runList } from "../core/operations/list.js";
import { runRead } from "../core/operations/read.js";
import { runRemove } from "../core/operations/remove.js";
import { runUpdate } from "../core/operations/update.js";
import type { Resource } from "../core/resource.js";
import type { PlainObject, RequestContext, WriteRecord } from "../core/types.js";
import { versionPrecondition } from "../core/versions.js";
import type { ToolDefinition, ToolKind } from "./toolDefinitions.js";
import { invalidArguments } from "./toolErrors.js";

/** A write a call would have made, as the observer hears of it when the call is refused. */
interface AttemptedWrite {
  target: Resource | WriteTarget;
  action: WriteRecord["action"];
  known: { id?: unknown; body?: unknown };
}

type ToolOf<K extends ToolKind> = Extract<ToolDefinition, { kind: K }>;

interface KindBehaviour<T extends ToolDefinition> {
  /**
   * The model whose records it reads or writes: a rate limit's key, the records its result
   * links, the model `describe_models` lists it under. None for custom and discovery tools.
   */
  resource(tool: T): Resource | undefined;
  /**
   * Whether its `id` argument names one document: a malformed one is the 404 REST gives
   * `/todos/not-an-id`, before the other arguments are looked at.
   */
  takesDocumentId(tool: T): boolean;
  /** Runs the tool with its checked arguments. */
  run(tool: T, input: PlainObject, ctx: RequestContext): Promise<PlainObject>;
  /** The write a refused call of a write tool was (`args` as sent); none: nothing is observed. */
  attemptedWrite(tool: T, args: unknown): AttemptedWrite | undefined;
  /** Whether the result's `data` are records of its model (MCP links them as resources). */
  returnsRecords(tool: T): boolean;
  /** Whether one such tool gives the app an MCP endpoint (a model's tools come with `mcp`). */
  servesEndpoint: boolean;
}

/** The CRUD tools that name one document by `id`, as REST names it in the path. */
const ID_METHODS: ReadonlySet<string> = new Set(["read", "update", "delete"]);

/** The arguments as an object, the `id` apart (a refused call's arguments may be anything). */
function idAndBody(args: unknown): { id?: unknown; body: PlainObject } {
  const object =
    typeof args === "object" && args !== null && !Array.isArray(args) ? (args as PlainObject) : {};
  const { id, ...body } = object;
  return { id, body };
}

async function runCrud(
  tool: ToolOf<"crud">,
  input: PlainObject,
  ctx: RequestContext,
): Promise<PlainObject> {
  const { resource } = tool;
  // The view the runner's verdict judged (`tool.access` was built on it): authorized once.
  const view = await callerView(resource, ctx);
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
    case "delete": {
      const { version } = input;
      const precondition =
        version === undefined ? {} : { precondition: versionPrecondition(version) };
      return { data: await runRemove(resource, view, ctx, { id: input.id, ...precondition }) };
    }
  }
}

const TOOL_KINDS: { [K in ToolKind]: KindBehaviour<ToolOf<K>> } = {
  crud: {
    resource: (tool) => tool.resource,
    takesDocumentId: (tool) => ID_METHODS.has(tool.method),
    run: runCrud,
    attemptedWrite: (tool, args) => ({
      target: tool.resource,
      action: tool.method,
      known: tool.method === "create" ? { body: args } : idAndBody(args),
    }),
    returnsRecords: (tool) => tool.method !== "delete",
    servesEndpoint: false,
  },
  action: {
    resource: (tool) => tool.resource,
    // The action operation loads its document itself (the same 404).
    takesDocumentId: () => false,
    run: (tool, input, ctx) => tool.handler(input, ctx),
    attemptedWrite: (tool, args) => ({
      target: tool.resource,
      action: tool.action.name,
      known: tool.action.scope === "instance" ? idAndBody(args) : { body: args },
    }),
    returnsRecords: (tool) => tool.action.scope === "instance",
    servesEndpoint: false,
  },
  custom: {
    resource: () => undefined,
    takesDocumentId: () => false,
    run: (tool, input, ctx) => tool.handler(input, ctx),
    attemptedWrite: (tool, args) => ({
      target: CUSTOM_TOOL_TARGET,
      action: tool.name,
      known: { body: args },
    }),
    returnsRecords: () => false,
    servesEndpoint: true,
  },
  discovery: {
    resource: () => undefined,
    takesDocumentId: () => false,
    run: (tool, input, ctx) => tool.handler(input, ctx),
    // Discovery tools only read.
    attemptedWrite: () => undefined,
    returnsRecords: () => false,
    servesEndpoint: false,
  },
};

/** The behaviour of `tool`'s kind. */
export function kindOf<T extends ToolDefinition>(tool: T): KindBehaviour<T> {
  // Sound: TOOL_KINDS[K] takes exactly the tools of kind K, and `tool.kind` is T's kind.
  return TOOL_KINDS[tool.kind] as unknown as KindBehaviour<T>;
}

/** The model `tool` reads or writes (none for custom and discovery tools). */
export function toolResource(tool: ToolDefinition): Resource | undefined {
  return kindOf(tool).resource(tool);
}
