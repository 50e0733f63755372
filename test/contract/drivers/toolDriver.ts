/**
 * What the tool surfaces (MCP, AI SDK) share: a tool is `${collection}_${method}` (or a custom
 * tool's own name) called with one input object, so every Driver operation is one call.
 */
import type { Failure, Outcome } from "../outcome.js";
import type { Actor } from "../world.js";
import type { Collection, Driver, ListArgs } from "./types.js";

/** Calls the tool `name` as `as`; answers `{absent: true}` when the actor has no such tool. */
type CallTool = (as: Actor, name: string, input: Record<string, unknown>) => Promise<Outcome>;

/** The list tool's input: the args that are set. */
function listInput(args: ListArgs = {}): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined));
}

/** A Driver over a tool surface: each operation names its tool and builds its input. */
function toolDriver(name: string, callTool: CallTool, close: () => Promise<void>): Driver {
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

/** What one actor holds on a tool surface: the tools it is offered and how it calls one. */
export interface ToolSession {
  /** The names of the tools this actor is offered. */
  offered: readonly string[];
  call(name: string, input: Record<string, unknown>): Promise<Outcome>;
  close?(): Promise<void>;
}

/** An actor that could not open a session at all (e.g. 401 for an anonymous MCP client). */
export interface RefusedSession {
  refused: Failure;
  close?(): Promise<void>;
}

/**
 * A Driver over a tool surface where each actor opens one session, on its first call, kept
 * until the driver closes: a tool the session does not offer answers `absent`, and every call
 * of a refused session answers its refusal.
 */
export function sessionDriver(
  name: string,
  open: (as: Actor) => Promise<ToolSession | RefusedSession>,
): Driver {
  const sessions = new Map<Actor, Promise<ToolSession | RefusedSession>>();
  const sessionOf = (as: Actor) => {
    let session = sessions.get(as);
    if (!session) {
      session = open(as);
      sessions.set(as, session);
    }
    return session;
  };
  return toolDriver(
    name,
    async (as, tool, input) => {
      const session = await sessionOf(as);
      if ("refused" in session) return session.refused;
      if (!session.offered.includes(tool)) {
        return { ok: false, absent: true, raw: session.offered.join(",") };
      }
      return session.call(tool, input);
    },
    async () => {
      for (const session of sessions.values()) await (await session).close?.();
      sessions.clear();
    },
  );
}
