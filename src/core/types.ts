/**
 * Types shared by the transport-free CRUD core and its adapters (REST, MCP, AI SDK).
 * Nothing here may import Express, the MCP SDK or `ai`.
 */
import type { Connection, HydratedDocument } from "mongoose";
import type { HiddenFields } from "../schema/hiddenFields.js";
import type { AnyModel } from "../schema/types.js";
import type { ErrorCode, TerrenoError } from "./errors.js";
import type { Logger } from "./logger.js";
import type { ModelFieldName, ModelPath } from "./modelPaths.js";
import type { WorkspaceAccess, WorkspaceDirectory } from "./workspaceTypes.js";

export type CrudMethod = "list" | "read" | "create" | "update" | "delete";
export const CRUD_METHODS: readonly CrudMethod[] = ["list", "read", "create", "update", "delete"];

/**
 * The app's own user fields, declared once by the app through declaration merging; they then
 * reach `ctx.user` in every hook, permission, action and tool:
 *
 * ```ts
 * declare module "terreno-mcp" {
 *   interface UserFields {
 *     name?: string | null;
 *   }
 * }
 * ```
 *
 * Nothing checks them at run time: `toUser` copies the user document's fields, so declare what
 * the user model holds. Reading an undeclared field is a compile error.
 */
// biome-ignore lint/suspicious/noEmptyInterface: the augmentation point; the app adds the fields.
export interface UserFields {}

/**
 * The caller, as resolved by the auth layer: `authUserPlugin`'s fields, what the credential
 * says (`scopes`, `tokenId`, `authMethod`), and the app's `UserFields`. `id` is the user's
 * ObjectId as a string.
 */
export interface User extends UserFields {
  id: string;
  _id?: unknown;
  /** From `authUserPlugin`. */
  admin?: boolean;
  /** From `authUserPlugin`; absent for callers an identity provider maps without one. */
  email?: string;
  /** From `authUserPlugin`; a disabled user is refused before reaching any hook. */
  disabled?: boolean;
  /**
   * The scopes of the credential the caller presented, set by its AuthProvider: a personal
   * access token (`["read"]` or `["read", "write"]`) or an OAuth access token (`mcp:read`,
   * `mcp:write`). Absent for sessions, which have full access. Never read from the user
   * document (`toUser` drops a field of this name). The rule is in src/core/scopes.ts.
   */
  scopes?: readonly string[];
  /** The personal access token the caller used (its id, never its value), for audit. */
  tokenId?: string;
  /**
   * How the caller signed in, set by its AuthProvider: `jwt`, `pat` (personal access token),
   * `oauth` (an external issuer's token), `better-auth`, or another provider's name. Never
   * read from the user document.
   */
  authMethod?: string;
  /**
   * The workspace the caller's credential is bound to (a personal access token created with a
   * `workspaceId`): the call acts there only. Never read from the user document.
   */
  boundWorkspaceId?: string;
}

/**
 * Which surface a call came through; hooks can branch on it. The one surface union: the tool
 * runner's, telemetry's and the views' names are derived from it.
 */
export type Surface = "rest" | "mcp" | "ai" | "internal";

/** The former name of {@link Surface}. */
export type Transport = Surface;

/**
 * The view each surface's calls are judged and presented by: REST and internal calls see the
 * REST view; MCP and AI tool calls the tools view, which also hides `mcp.excludeFields`.
 */
export const SURFACE_VIEWS = {
  rest: "rest",
  internal: "rest",
  mcp: "tools",
  ai: "tools",
} as const satisfies Record<Surface, string>;

/** A per-surface view's name (`resource.views.rest`, `resource.views.tools`). */
export type ViewName = (typeof SURFACE_VIEWS)[Surface];

/**
 * What hooks, permissions and handlers see of a request. It is deliberately not an
 * Express request: MCP and in-process AI calls have no HTTP request to fake.
 */
export interface RequestContext {
  user?: User;
  transport: Surface;
  /** Lower-cased request headers when the call came over HTTP. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The transport's native request object (the Express request for REST), for escape hatches. */
  raw?: unknown;
  /** The route or tool the call came through, e.g. `PATCH /todos/:id` or `todos_update`. */
  operation?: string;
  /**
   * The scopes this call is limited to; when absent, those of the caller's credential
   * (`user.scopes`). `undefined` on both means a session: full access. See src/core/scopes.ts.
   */
  scopes?: readonly string[];
  /**
   * The app's shared services (logger, observer, hidden fields, rate limits, tools, tracer),
   * the same object for every call of the app: src/core/services.ts.
   */
  services: AppServices;
  /**
   * The call's workspace, resolved on first use (src/core/workspace.ts); absent when the app has
   * no workspaces (`AppServices.workspaces`). Set by `callContext`.
   */
  workspace?: WorkspaceAccess;
}

/**
 * One writer at a time per `(record, version)`, across connections and instances: `claim` is
 * true for the one caller that took the slot, `release` gives it back once the write is done.
 */
export interface VersionClaims {
  claim(connection: Connection, record: string, version: number): Promise<boolean>;
  release(connection: Connection, record: string, version: number): Promise<void>;
}

/** Which limit a call spends. */
export type LimitedAction = "write" | "toolCall";

export interface LimitedCall<TResource = unknown> {
  action: LimitedAction;
  /** What is written, or whose tool is called: its router's `rateLimit` replaces the app's. */
  resource?: TResource;
  user?: Pick<User, "id">;
  /** The client address (`clientIp(req)`), when the call came over HTTP. */
  ip?: string;
}

/**
 * `AppServices`: what an app shares with every call, built once by TerrenoApp and handed whole
 * to each surface (REST routes, /mcp, AI tools, the chat). Every `RequestContext` carries it
 * beside the per-call facts (caller, surface, operation, scopes, headers), so a new shared
 * service is one field here and one line where TerrenoApp builds it (docs/development.md).
 *
 * The core reads only the observer and the hidden fields. The tools and resources are type
 * parameters so this file imports nothing that imports RequestContext back (no import
 * circle); src/tools/services.ts names the app's concrete `Services`.
 */
export interface AppServices<TTool = unknown, TResource = unknown> {
  /** Where every surface reports server faults. */
  logger: Logger;
  /** Told about every write, done or refused (observe.ts): TerrenoApp's audit observer. */
  observer?: OperationObserver;
  /**
   * The hidden fields the app's routers declare for a model on a surface. A document of another
   * model (populated, or in an action's or custom tool's result) leaves as that model's own
   * routers show it (src/core/present.ts).
   */
  hiddenOf?: HiddenFieldsLookup;
  /**
   * The app's rate limits, when on: REST writes and tool calls spend their points here
   * (src/ops `RateLimits.consume`). Throws `rate_limited` when the caller has no points left.
   */
  rateLimits?: { consume(call: LimitedCall<TResource>): Promise<void> };
  /** The app's resources (its model routers'). */
  resources: readonly TResource[];
  /**
   * Locks one `(record, version)` by a unique insert (src/ops/versionClaims.ts), so a
   * conditional write is exact on FerretDB too (src/core/versions.ts). Absent: the write rests
   * on its compare-and-set alone, exact on MongoDB.
   */
  versionClaims?: VersionClaims;
  /** Every tool definition of the app, built once. */
  tools: readonly TTool[];
  /** Runs each tool call inside its trace (src/ops/telemetry.ts `traceToolCall`). */
  tracer: ToolCallTracer;
  /**
   * Idempotency keys (src/ops/idempotency.ts), shared by every instance on the app's database:
   * REST's `Idempotency-Key`, MCP's `_meta.idempotencyKey` and the chat's tool-call ids. Without
   * it (a router outside an app), keys are ignored.
   */
  idempotency?: IdempotencyGuard;
  /** The app's workspaces and memberships, when it has them (src/workspaces). */
  workspaces?: WorkspaceDirectory;
}

/** One request under an idempotency key. */
export interface IdempotentRequest {
  /** The family of keys: a REST request's key and a tool call's never meet. */
  scope: "http" | "tool";
  /** The caller's user id: keys are per caller. */
  caller: string;
  key: string;
  /** A hash of what the request asks (route and body, or tool and arguments). */
  fingerprint: string;
}

/**
 * What `begin` decided: run (then `finish` with the answer to keep, or `release` the key so a
 * retry runs), or replay the answer the first request kept. A key in use by a request still
 * running (409) or with another fingerprint (422) throws.
 */
export type IdempotencyStart =
  | { state: "run"; finish(answer: unknown): Promise<void>; release(): Promise<void> }
  | { state: "replay"; answer: unknown };

export interface IdempotencyGuard {
  begin(request: IdempotentRequest): Promise<IdempotencyStart>;
}

/** What a tool call's runner reports about its outcome (the call may fail without throwing). */
export interface ToolCallTrace {
  /** The call failed with this error (a result with `isError`, or an `{error}` output). */
  fail(error: TerrenoError): void;
  /** The call's context, once made: its span names the workspace it resolved, if any. */
  context(ctx: Pick<RequestContext, "workspace">): void;
}

export interface ToolCallInfo {
  surface: Exclude<Surface, "rest" | "internal">;
  /** The tool's name, e.g. `todos_list`. */
  tool: string;
  /** The AI SDK's tool call id, when there is one. */
  callId?: string;
  /**
   * The MCP method traced: `tools/call` (the default), or a prompt's `prompts/get` or
   * `completion/complete` (then `tool` is the prompt's name).
   */
  method?: "tools/call" | "prompts/get" | "completion/complete";
}

/** Runs one tool call inside its trace, span and duration metric. */
type ToolCallTracer = <T>(
  info: ToolCallInfo,
  run: (trace: ToolCallTrace) => Promise<T>,
) => Promise<T>;

/** Every router's hidden fields for `model` on `surface` (none when no router serves it). */
export type HiddenFieldsLookup = (model: AnyModel, surface: ViewName) => readonly HiddenFields[];

/** `"success"`, or the error code a write was refused or failed with. */
export type WriteOutcome = "success" | ErrorCode;

/** What the core tells `RequestContext.observer` about one write (see observe.ts). */
export interface WriteRecord {
  /** `create`, `update`, `delete`, or an action's name. */
  action: Exclude<CrudMethod, "list" | "read"> | (string & {});
  /** The Mongoose model name, e.g. `Todo`. */
  model: string;
  /** The document's id, when known: always after a create, and for a well-formed id otherwise. */
  documentId?: string;
  /**
   * The schema paths the caller's body names (top-level and nested, dotted), never their
   * values. Empty for a delete.
   */
  fields: string[];
  outcome: WriteOutcome;
  /**
   * A successful write of one record: the record as stored before and after it (raw, hidden
   * fields included) and its version after. For change records (src/ops/changeLog.ts) only;
   * audit events never carry values.
   */
  snapshot?: WriteSnapshot;
}

/** The record as stored around one write; `before` absent for a create, `after` for a hard delete. */
export interface WriteSnapshot {
  before?: PlainObject;
  after?: PlainObject;
  version?: number;
}

export interface OperationObserver {
  /**
   * Called once per write before the operation returns or throws. It is awaited; it must not
   * throw (TerrenoApp's observer catches and logs its sinks' failures).
   */
  write(record: WriteRecord, ctx: RequestContext): void | Promise<void>;
}

/**
 * A document as the core holds it: any model's. Hooks, permissions and actions see their own
 * model's `HydratedDocument<T>` instead (the options' types are erased once, in resource.ts).
 */
export type StoredDocument = HydratedDocument<unknown>;

/** What hooks receive when options are typed by their raw document only: `CrudOptions<ITodo>`. */
export type DocumentOf<TRaw> = unknown extends TRaw ? unknown : HydratedDocument<TRaw>;

/** What a permission check may read of the call besides the user: its workspace. */
export type PermissionCaller = Pick<RequestContext, "user" | "scopes" | "workspace">;

/**
 * One permission check. `obj` is the loaded document for object-level checks (absent for
 * method-level ones). The built-ins (`IsOwner`, `IsAdmin`…) take `unknown`, so they fit every
 * model; an app's own check can name its model's document: `PermissionMethod<TodoDocument>`.
 * `caller` is the call (its workspace: `WorkspaceRole`), absent where no call is judged.
 */
export type PermissionMethod<TDoc = unknown> = (
  method: CrudMethod,
  user?: User,
  obj?: TDoc,
  caller?: PermissionCaller,
) => boolean | Promise<boolean>;

export type Permissions<TDoc = unknown> = Partial<Record<CrudMethod, PermissionMethod<TDoc>[]>>;

export interface PopulatePath<TRaw = unknown> {
  /** A path of the model holding a ref (`ownerId`), checked against the model's paths. */
  path: ModelPath<TRaw>;
  /** Fields to select on the populated document; hidden fields are always removed. */
  fields?: string[];
}

export type PlainObject = Record<string, unknown>;

/** `TDoc` is the model's hydrated document, inferred by `modelRouter(Model, options)`. */
export interface CrudHooks<TDoc = unknown> {
  /** Return the (possibly changed) body; `null` refuses the write with 403. */
  preCreate?: (
    body: PlainObject,
    req: RequestContext,
  ) => PlainObject | null | Promise<PlainObject | null>;
  postCreate?: (doc: TDoc, req: RequestContext) => void | Promise<void>;
  /** `doc` is the stored document, before the patch: a rule can read the record as it is. */
  preUpdate?: (
    body: PlainObject,
    req: RequestContext,
    doc: TDoc,
  ) => PlainObject | null | Promise<PlainObject | null>;
  postUpdate?: (
    doc: TDoc,
    body: PlainObject,
    req: RequestContext,
    prevDoc: TDoc,
  ) => void | Promise<void>;
  /** Return `null` to refuse the delete with 403. */
  preDelete?: (doc: TDoc, req: RequestContext) => unknown | Promise<unknown>;
  postDelete?: (doc: TDoc, req: RequestContext) => void | Promise<void>;
}

export interface MCPConfig<TRaw = unknown> {
  /** Which tools to expose. Default: `['list', 'read']`. */
  methods?: CrudMethod[];
  /** Replaces the generated tool description prefix. */
  description?: string;
  /** Tool name prefix; default is the pluralized snake_case model name. */
  toolPrefix?: string;
  /** Bare names hide a field at every depth; dotted paths hide one location. */
  excludeFields?: Array<ModelPath<TRaw> | ModelFieldName<TRaw>>;
  /** Upper bound for `limit` on the list tool. Default 50. */
  maxLimit?: number;
  /**
   * The field that names a record: the `name` of its MCP resource and what argument
   * completions match besides the id. Default: the first string field of `title`, `name`,
   * `label`, `subject` that the tools see.
   */
  titleField?: ModelPath<TRaw>;
  /**
   * Writes the person confirms first, when the MCP client can ask them (elicitation):
   * `["delete"]`, or `["create", "update", "delete"]`. An action opts in with its own
   * `confirm`. Clients without elicitation call the tool as before. Default none.
   */
  confirm?: Array<"create" | "update" | "delete">;
  /** Replaces `responseHandler` for MCP and AI-tool results. */
  mcpResponseHandler?: (
    value: PlainObject | PlainObject[],
    method: CrudMethod,
    user?: User,
  ) => unknown;
}

/** At most `points` per caller in any window of `duration` seconds (counted from its first use). */
export interface RateLimitWindow {
  /** How many requests (points) a caller may spend per window. A positive integer. */
  points: number;
  /** The window, in seconds. */
  duration: number;
}

/** Defined in src/schema (the layer below), where models are described. */
export type { AnyModel } from "../schema/types.js";

/**
 * The raw document type of a model (`typeof Todo`). Read off `castObject` rather than matched
 * against `Model<…>`'s parameters, whose number and defaults differ between Mongoose majors.
 */
export type RawDocOf<M> = M extends { castObject(...args: never[]): infer TRaw } ? TRaw : never;

/** The hydrated document type of a model (`typeof Todo`): what hooks and actions receive. */
export type DocOf<M> = M extends new (...args: never[]) => infer THydrated ? THydrated : never;
