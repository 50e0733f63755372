/**
 * `modelRouter(Model, options)`: everything a router's options may set. Its own file because it
 * joins the core's types with the action shapes (actionTypes.ts), which import the core's types.
 */
import type { ActionConfig } from "./actionTypes.js";
import type { FieldRule } from "./fieldRules.js";
import type { ModelPath, ModelSort } from "./modelPaths.js";
import type {
  AnyModel,
  CrudHooks,
  CrudMethod,
  DocOf,
  DocumentOf,
  MCPConfig,
  Permissions,
  PlainObject,
  PopulatePath,
  RateLimitWindow,
  RawDocOf,
  RequestContext,
  User,
} from "./types.js";

export type ResponseHandler = (
  value: PlainObject | PlainObject[],
  method: CrudMethod,
  req: RequestContext,
  options: CrudOptions,
) => unknown | Promise<unknown>;

/**
 * `modelRouter(Model, options)`'s options. `TRaw` is the model's raw document type and `TDoc`
 * its hydrated document; both are inferred from the model when the options are written inline.
 * Options written apart from the call take `ModelRouterOptions<typeof Model>`. Field names
 * (`queryFields`, `sort`, `readOnlyFields`, `populatePaths`, `mcp.excludeFields`) are checked
 * against the model's paths.
 */
export interface CrudOptions<TRaw = unknown, TDoc = DocumentOf<TRaw>> extends CrudHooks<TDoc> {
  permissions: Permissions<TDoc>;
  /** Fields that list callers may filter on. Anything else gets a 400. */
  queryFields?: ModelPath<TRaw>[];
  /** Merged over the caller's filter. Returning `null` yields an empty result. */
  queryFilter?: (
    user: User | undefined,
    query: PlainObject,
  ) => PlainObject | null | Promise<PlainObject | null>;
  /** Defaults applied to list filters when the caller does not set them. */
  defaultQueryParams?: PlainObject;
  /** Default sort, e.g. `"-createdAt"` or `{ createdAt: -1 }`. */
  sort?: ModelSort<TRaw>;
  defaultLimit?: number;
  maxLimit?: number;
  populatePaths?: PopulatePath<TRaw>[];
  /**
   * The field holding a record's workspace (`"workspaceId"`): every surface then confines the
   * model to the call's current workspace (src/core/workspaceScope.ts). Lists show only its
   * records, another workspace's record is 404, a create stores the current workspace, and the
   * field is read-only to callers. Needs the app's `workspaces` option.
   */
  workspace?: ModelPath<TRaw>;
  /** Fields no client may write (e.g. an owner set by a hook). Writes naming them get a 400. */
  readOnlyFields?: ModelPath<TRaw>[];
  /**
   * Per-role field rules: who may read and who may write a field, each a list of permission
   * methods like `permissions`' (`{costCents: {read: [IsAdmin]}}`), called with no document.
   * A field a caller may not read is absent from everything they see and refused as an unknown
   * field; one they may not write is read-only to them. See src/core/fieldRules.ts.
   */
  fields?: Partial<Record<ModelPath<TRaw>, FieldRule<TDoc>>>;
  responseHandler?: ResponseHandler;
  /**
   * Refuse updates and deletes that do not say which version they change (REST `If-Match` or
   * `version` in the body; the tools' `version`): 428 `precondition_required`. Default false.
   */
  requireVersion?: boolean;
  /** Opt this model in to MCP and AI tools. */
  mcp?: MCPConfig<TRaw>;
  /**
   * Whether callers with no user reach the permission checks. `true`/`false` sets every
   * surface; an object sets REST and the tools (MCP, AI) apart. Default: REST leaves anonymous
   * callers to the permissions (so `IsAny` serves them), tools refuse them with 401.
   */
  allowAnonymous?: boolean | { rest?: boolean; tools?: boolean };
  /**
   * This router's own rate limit for REST writes (POST/PATCH/DELETE) and for calls of its MCP
   * and AI tools, per caller, in place of the app's `rateLimit.writes` / `rateLimit.toolCalls`;
   * `false` exempts the router. Takes effect when the app has rate limits on (src/ops/rateLimit.ts).
   */
  rateLimit?: RateLimitWindow | false;
  /**
   * Named operations beyond CRUD, each a REST route (`POST /todos/:id/complete` for an
   * instance action, `POST /todos/complete` for a collection one) and, on an MCP-enabled
   * router, a tool (`todos_complete`). See src/core/actionTypes.ts.
   */
  actions?: Record<string, ActionConfig<TDoc>>;
}
/**
 * Options for `modelRouter(Model, …)` written apart from the call:
 * `const todoOptions: ModelRouterOptions<typeof Todo> = {…}`.
 */
export type ModelRouterOptions<M extends AnyModel> = CrudOptions<RawDocOf<M>, DocOf<M>>;
