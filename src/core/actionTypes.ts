/**
 * Actions (`modelRouter(Model, {actions})`) and custom tools (`app.tool(name, spec)`): the
 * shapes users write. Both run through the core's pipeline (src/core/operations/action.ts,
 * customTool.ts): caller, scope, permissions, one zod validation, hidden fields, the error
 * table, audit for writes. Nothing here may import a transport.
 */
import type { z } from "zod";
import type { AnyModel, DocOf, PermissionMethod, RequestContext, User } from "./types.js";

/** MCP tool annotations an action or custom tool may set. Default: a write (not read-only). */
export interface ActionAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What a handler may return: what its `output` schema accepts, or anything without one. */
export type HandlerResult<Output extends z.ZodType> = z.input<Output> | Promise<z.input<Output>>;

interface ActionCommon<TDoc> {
  /** The action's input, a `z.object(...)`. Default: no input (`z.object({})`). */
  input?: z.ZodType;
  /**
   * Accept keys the input does not declare (zod then strips them, or keeps them with
   * `z.looseObject`). Default false: unknown keys are refused (`additionalProperties: false`
   * in the tool's schema, `validation_failed` naming each key).
   */
  allowUnknownKeys?: boolean;
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
  permissions: PermissionMethod<TDoc>[];
  annotations?: ActionAnnotations;
  /** What the action does, for the tool description and OpenAPI. */
  description: string;
  /** A short human title; default from the tool name. */
  title?: string;
  /**
   * Ask the person to confirm before the action runs, when the MCP client can ask them
   * (elicitation): `true`, or the question to ask. Default false.
   */
  confirm?: boolean | string;
}

/**
 * `POST /todos/:id/complete`, tool `todos_complete({id, ...input})`. `doc` is the model's
 * document; `input` is `unknown` here (validated by `input` first): `defineAction` types it
 * from the zod schema, and the result from `output`.
 */
export interface InstanceActionConfig<TDoc = unknown> extends ActionCommon<TDoc> {
  scope: "instance";
  handler: (ctx: RequestContext, doc: TDoc, input: unknown) => unknown | Promise<unknown>;
}

/** `POST /todos/complete`, tool `todos_complete({...input})`; see `defineAction`. */
export interface CollectionActionConfig<TDoc = unknown> extends ActionCommon<TDoc> {
  scope: "collection";
  handler: (ctx: RequestContext, input: unknown) => unknown | Promise<unknown>;
}

export type ActionConfig<TDoc = unknown> =
  | InstanceActionConfig<TDoc>
  | CollectionActionConfig<TDoc>;

/** Who may call a custom tool: a predicate on the caller, or CRUD-style permission methods. */
export type CustomToolPermissions =
  | ((user: User | undefined) => boolean | Promise<boolean>)
  | PermissionMethod[];

/**
 * `app.tool(name, spec)`: a tool that is not one model's. The handler's `input` is the
 * parsed `input`, and what it returns must be what `output` accepts (checked by the compiler
 * and, on every call, by `output` itself).
 */
export interface CustomToolConfig<
  Input extends z.ZodType = z.ZodType,
  Output extends z.ZodType = z.ZodType,
> {
  /** A `z.object(...)`; the handler's `input` is its parsed output. Default: no input. */
  input?: Input;
  /** Accept keys `input` does not declare; default false (refused, as for actions). */
  allowUnknownKeys?: boolean;
  output?: Output;
  /** Default: any authenticated caller (anonymous callers are refused unless `allowAnonymous`). */
  permissions?: CustomToolPermissions;
  /** Serve callers with no user (they still face `permissions`). Default false. */
  allowAnonymous?: boolean;
  annotations?: ActionAnnotations;
  description: string;
  title?: string;
  handler: (ctx: RequestContext, input: z.output<Input>) => HandlerResult<Output>;
}

type Typed<C, I extends z.ZodType, O extends z.ZodType, H> = Omit<
  C,
  "input" | "output" | "handler"
> & {
  input?: I;
  output?: O;
  handler: H;
};

/**
 * Types an action's handler from its schemas (in a `Record<string, ActionConfig>` the input
 * is `unknown`): `actions: {rename: defineAction({scope: "instance", input: z.object({title:
 * z.string()}), ..., handler: (ctx, doc, input) => ...})}` gives `input.title: string`, `doc`
 * the router's model's document, and checks the result against `output` when there is one.
 * Defined apart from the router, it takes the model first: `defineAction(Project, {...})`.
 */
export function defineAction<
  M extends AnyModel,
  I extends z.ZodType,
  O extends z.ZodType = z.ZodType,
>(
  model: M,
  config: Typed<
    InstanceActionConfig<DocOf<M>>,
    I,
    O,
    (ctx: RequestContext, doc: DocOf<M>, input: z.output<I>) => HandlerResult<O>
  >,
): InstanceActionConfig<DocOf<M>>;
export function defineAction<
  M extends AnyModel,
  I extends z.ZodType,
  O extends z.ZodType = z.ZodType,
>(
  model: M,
  config: Typed<
    CollectionActionConfig<DocOf<M>>,
    I,
    O,
    (ctx: RequestContext, input: z.output<I>) => HandlerResult<O>
  >,
): CollectionActionConfig<DocOf<M>>;
export function defineAction<I extends z.ZodType, O extends z.ZodType = z.ZodType, TDoc = unknown>(
  config: Typed<
    InstanceActionConfig<NoInfer<TDoc>>,
    I,
    O,
    (ctx: RequestContext, doc: TDoc, input: z.output<I>) => HandlerResult<O>
  >,
): InstanceActionConfig<TDoc>;
export function defineAction<I extends z.ZodType, O extends z.ZodType = z.ZodType, TDoc = unknown>(
  config: Typed<
    CollectionActionConfig<NoInfer<TDoc>>,
    I,
    O,
    (ctx: RequestContext, input: z.output<I>) => HandlerResult<O>
  >,
): CollectionActionConfig<TDoc>;
export function defineAction(
  ...args: [config: ActionConfig] | [model: AnyModel, config: ActionConfig]
): ActionConfig {
  // The model only types the handler; the router the action is given to supplies the documents.
  return args.length === 2 ? args[1] : args[0];
}
