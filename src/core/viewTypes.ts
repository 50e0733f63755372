/**
 * The shape of a per-surface view (built in view.ts). Its own file so that the filter and sort
 * checks, which read a view, and the list schema, which view.ts builds on, share it without a circle.
 */
import type { HiddenFields } from "../schema/hiddenFields.js";
import type { JsonSchema } from "../schema/types.js";
import type { Validator } from "../schema/validator.js";
import type { CrudMethod, PopulatePath, ViewName } from "./types.js";

/** REST sees everything but `select: false`; MCP and AI tools also lose `mcp.excludeFields`. */
export interface SurfaceView {
  surface: ViewName;
  hidden: HiddenFields;
  /** Paths a list filter may name, in the order they were declared. */
  filterable: readonly string[];
  /** Paths a sort may name, as the caller writes them (`id` for `_id`). */
  sortable: readonly string[];
  populatable: readonly PopulatePath[];
  /** The methods this surface serves; anything else is a 405. */
  methods: ReadonlySet<CrudMethod>;
  defaultLimit: number;
  maxLimit: number;
  /** Whether a caller with no user may reach the permission checks at all. */
  anonymous: boolean;
  /**
   * Whether a path (at any depth, as descriptors name it) is read-only to this view's callers:
   * `readOnlyFields`. Immutable fields are apart: a new array item may still set them.
   */
  readOnlyPath: (path: string) => boolean;
  createSchema: JsonSchema;
  updateSchema: JsonSchema;
  validateCreate: Validator;
  validateUpdate: Validator;
  /**
   * Tools only: the typed list input the list tool advertises, checked by the core on every
   * list call of this surface. REST's query-string text is coerced by the core instead.
   */
  listInput?: ListInputContract;
}

export interface ListInputContract {
  schema: JsonSchema;
  /** The schema's validator, applied to every `$or`/`$and` branch as well. */
  validate: Validator;
}
