/** What a surface driver offers the cases: the five CRUD operations, as an actor. */
import type { Outcome } from "../outcome.js";
import type { Actor } from "../world.js";

/** The routed collections; REST paths are `/${name}`, tool names `${name}_${method}`. */
export type Collection =
  | "todos"
  | "foods"
  | "memos"
  | "gadgets"
  | "gizmos"
  | "shared"
  | "open"
  | "projects"
  | "boards"
  | "invoices"
  | "notes";

export interface ListArgs {
  filter?: Record<string, unknown>;
  sort?: string;
  page?: number;
  limit?: number;
}

/** `rest` sees every non-`select: false` field; `tools` (MCP, AI) also lose mcp.excludeFields. */
export type Surface = "rest" | "tools";

export interface Driver {
  /** e.g. "rest", "mcp v2-auto", "ai execute", "ai generateText". */
  readonly name: string;
  readonly surface: Surface;
  list(as: Actor, collection: Collection, args?: ListArgs): Promise<Outcome>;
  /** `populate` narrows the populated paths (`[]`: refs as ids), as `?populate=` does. */
  read(
    as: Actor,
    collection: Collection,
    id: string,
    options?: { populate?: string[] },
  ): Promise<Outcome>;
  create(as: Actor, collection: Collection, body: Record<string, unknown>): Promise<Outcome>;
  update(
    as: Actor,
    collection: Collection,
    id: string,
    body: Record<string, unknown>,
  ): Promise<Outcome>;
  /** `version`: the precondition (REST `If-Match`, the tool's `version`). */
  delete(as: Actor, collection: Collection, id: string, version?: number): Promise<Outcome>;
  /** An action: `POST /${collection}/:id/${name}` (or without the id), tool `${collection}_${name}`. */
  action(
    as: Actor,
    collection: Collection,
    name: string,
    id: string | undefined,
    input: Record<string, unknown>,
  ): Promise<Outcome>;
  /** A custom tool: `POST /tools/${name}`, tool `${name}`. */
  tool(as: Actor, name: string, input: Record<string, unknown>): Promise<Outcome>;
  close(): Promise<void>;
}
