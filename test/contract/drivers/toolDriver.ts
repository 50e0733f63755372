/**
 * What the tool surfaces (MCP, AI SDK) share: a tool is `${collection}_${method}` (or a custom
 * tool's own name) called with one input object, so every Driver operation is one call.
 */
import type { Outcome } from "../outcome.js";
import type { Actor } from "../world.js";
import type { Collection, Driver, ListArgs } from "./types.js";

/** Calls the tool `name` as `as`; answers `{absent: true}` when the actor has no such tool. */
export type CallTool = (
  as: Actor,
  name: string,
  input: Record<string, unknown>,
) => Promise<Outcome>;

/** The list tool's input: the args that are set. */
function listInput(args: ListArgs = {}): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined));
}

/** A Driver over a tool surface: each operation names its tool and builds its input. */
export function toolDriver(name: string, callTool: CallTool, close: () => Promise<void>): Driver {
  const call = (
    as: Actor,
    collection: Collection,
    method: string,
    input: Record<string, unknown>,
  ) => callTool(as, `${collection}_${method}`, input);
  return {
    name,
    surface: "tools",
    list: (as, collection, args) => call(as, collection, "list", listInput(args)),
    read: (as, collection, id, options) => call(as, collection, "read", { id, ...options }),
    create: (as, collection, body) => call(as, collection, "create", body),
    update: (as, collection, id, body) => call(as, collection, "update", { id, ...body }),
    delete: (as, collection, id, version) =>
      call(as, collection, "delete", version === undefined ? { id } : { id, version }),
    action: (as, collection, action, id, input) =>
      call(as, collection, action, id === undefined ? input : { id, ...input }),
    tool: (as, tool, input) => callTool(as, tool, input),
    close,
  };
}
