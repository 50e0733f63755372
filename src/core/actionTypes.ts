/**
 * Actions (`modelRouter(Model, {actions})`) and custom tools (`app.tool(name, spec)`): the
 * shapes users write. Both run through the core's pipeline (src/core/operations/action.ts,
 * customTool.ts): caller, scope, permissions, one zod validation, hidden fields, the error
 * table, audit for writes. Nothing here may import a transport.
 */
import type { z } from "zod";
import type { AnyDocument, PermissionMethod, RequestContext, User } from "./types.js";

/** MCP tool annotations an action or custom tool may set. Default: a write (not read-only). */
export interface ActionAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

interface ActionCommon {
  /** The action's input, a `z.object(...)`. Default: no input (`z.object({})`). */
  input?: z.ZodType;
  /**
   * The handler's result, checked on every call (a mismatch is a server fault, 500). Without
   * it the result is treated as the model's data: serialized and stripped of hidden fields.
   */
  output?: z.ZodType;
  /**
   * Who may run it, called as CRUD permissions are, with the action's name as the method:
   * `(name, user)` before loading and, for instance actions, `(name, user, doc)` on the
   * document (which the caller must also be able to read, else 404).
   */
  permissions: PermissionMethod[];
  annotations?: ActionAnnotations;
  /** What the action does, for the tool description and OpenAPI. */
  description: string;
  /** A short human title; default from the tool name. */
  title?: string;
}

/** `POST /todos/:id/complete`, tool `todos_complete({id, ...input})`. */
export interface InstanceActionConfig extends ActionCommon {
  scope: "instance";
  // biome-ignore lint/suspicious/noExplicitAny: the input's type is the zod schema's; see defineAction.
  handler: (ctx: RequestContext, doc: AnyDocument, input: any) => unknown | Promise<unknown>;
}

/** `POST /todos/complete`, tool `todos_complete({...input})`. */
export interface CollectionActionConfig extends ActionCommon {
  scope: "collection";
  // biome-ignore lint/suspicious/noExplicitAny: the input's type is the zod schema's; see defineAction.
  handler: (ctx: RequestContext, input: any) => unknown | Promise<unknown>;
}

export type ActionConfig = InstanceActionConfig | CollectionActionConfig;

/** Who may call a custom tool: a predicate on the caller, or CRUD-style permission methods. */
export type CustomToolPermissions =
  | ((user: User | undefined) => boolean | Promise<boolean>)
  | PermissionMethod[];

/** `app.tool(name, spec)`: a tool that is not one model's. */
export interface CustomToolConfig<Input extends z.ZodType = z.ZodType> {
  /** A `z.object(...)`; the handler's `input` is its parsed output. Default: no input. */
  input?: Input;
  output?: z.ZodType;
  /** Default: any authenticated caller (anonymous callers are refused unless `allowAnonymous`). */
  permissions?: CustomToolPermissions;
  /** Serve callers with no user (they still face `permissions`). Default false. */
  allowAnonymous?: boolean;
  annotations?: ActionAnnotations;
  description: string;
  title?: string;
  handler: (ctx: RequestContext, input: z.output<Input>) => unknown | Promise<unknown>;
}

type Typed<C extends ActionConfig, I extends z.ZodType, H> = Omit<C, "input" | "handler"> & {
  input?: I;
  handler: H;
};

/**
 * Types an action's handler input from its zod schema (in a `Record<string, ActionConfig>`
 * it is `any`): `actions: {rename: defineAction({scope: "instance", input: z.object({title:
 * z.string()}), ..., handler: (ctx, doc, input) => ...})}` gives `input.title: string`.
 */
export function defineAction<I extends z.ZodType>(
  config: Typed<
    InstanceActionConfig,
    I,
    (ctx: RequestContext, doc: AnyDocument, input: z.output<I>) => unknown | Promise<unknown>
  >,
): InstanceActionConfig;
export function defineAction<I extends z.ZodType>(
  config: Typed<
    CollectionActionConfig,
    I,
    (ctx: RequestContext, input: z.output<I>) => unknown | Promise<unknown>
  >,
): CollectionActionConfig;
export function defineAction(config: ActionConfig): ActionConfig {
  return config;
}
