/**
 * Prompts (`app.prompt(name, spec)`): the shape users write. A prompt is a template of
 * messages the client offers its person (a slash command, a menu entry); its arguments are
 * zod schemas over the strings MCP sends, and its `messages` run with the caller's context,
 * so they may read the caller's records through the core (`ctx.records`). Nothing here may
 * import a transport.
 */
import type { z } from "zod";
import type { CustomToolPermissions } from "./actionTypes.js";
import type { ListInput, ListResult } from "./operations/list.js";
import type { PlainObject, RequestContext } from "./types.js";
import type { AccessRule } from "./verdict.js";

/** One message of a prompt: a plain string is a text block. */
export interface PromptMessage {
  role: "user" | "assistant";
  content: string;
}

/**
 * The caller's records, read through the core as the caller (the tools' view: method
 * permissions, `queryFilter`, hidden fields): what a prompt's `messages` reads with.
 */
export interface PromptRecords {
  /** One page of a model's records this caller may list (`filter` as the list tool takes it). */
  list(model: string, input?: Pick<ListInput, "filter" | "sort" | "limit">): Promise<ListResult>;
  /** One record this caller may read; `not_found` otherwise. */
  read(model: string, id: string): Promise<unknown>;
}

/** What a prompt's `messages` and `complete` functions receive: the call's context, and its records. */
export interface PromptContext extends RequestContext {
  records: PromptRecords;
}

/**
 * Where an argument's completions come from: the values of a model's field among the records
 * this caller may list (`field` default: the model's title field; `"id"` offers ids), or a
 * function of what was typed, run as the caller. An enum argument completes by itself.
 */
export type PromptCompletion =
  | { model: string; field?: string }
  | ((value: string, ctx: PromptContext) => readonly string[] | Promise<readonly string[]>);

/** A prompt's arguments: a zod schema per argument, over a string (`.optional()` when not required). */
export type PromptArguments = Record<string, z.ZodType<string | undefined>>;

/** The parsed arguments `messages` receives. */
export type PromptArgs<A extends PromptArguments> = { [K in keyof A]: z.output<A[K]> };

/** `app.prompt(name, spec)`. */
export interface PromptConfig<A extends PromptArguments = PromptArguments> {
  /** A short human title; default from the name. */
  title?: string;
  description: string;
  /** Default: none. Unknown arguments are refused (`-32602`), as are values a schema refuses. */
  arguments?: A;
  /** Completions per argument name (`completion/complete`); an enum argument needs none. */
  complete?: { [K in keyof A]?: PromptCompletion };
  /** Who sees it, as for a custom tool. Default: any authenticated caller. */
  permissions?: CustomToolPermissions;
  /** Serve callers with no user (they still face `permissions`). Default false. */
  allowAnonymous?: boolean;
  messages(
    args: PromptArgs<A>,
    ctx: PromptContext,
  ): readonly PromptMessage[] | Promise<readonly PromptMessage[]>;
}

/** One argument as MCP lists it, with where its completions come from. */
export interface PromptArgumentDefinition {
  name: string;
  description?: string;
  required: boolean;
  /** An enum argument's values: what it completes to. */
  values?: readonly string[];
  complete?: PromptCompletion;
}

/** A prompt built once (src/tools/prompts.ts `promptDefinition`), served by every surface. */
export interface PromptDefinition {
  name: string;
  title: string;
  description: string;
  arguments: readonly PromptArgumentDefinition[];
  access: AccessRule;
  /** The one validation: unknown arguments and values a schema refuses are `validation_failed`. */
  parse(args: unknown): PlainObject;
  messages(args: PlainObject, ctx: PromptContext): Promise<readonly PromptMessage[]>;
}
