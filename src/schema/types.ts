/**
 * A transport-neutral description of a Mongoose model's fields. Built once per model and
 * read by every consumer: REST body validation, list-filter coercion, MCP/AI input and
 * output schemas, and the hidden-field rules.
 */
import type { Model } from "mongoose";

type NoHelpers = Record<never, never>;

/**
 * Any Mongoose model: user model types vary, and the framework only reads schema metadata. Its
 * virtuals are `any` too: Mongoose infers `{id: string}` for most schemas, and with `Model<any>`
 * (no virtuals) whether such a model is assignable depended on the order the compiler happened
 * to compare Mongoose's types in, so unrelated code could break every model argument.
 */
// biome-ignore lint/suspicious/noExplicitAny: see above; `any` lives in this one named alias.
export type AnyModel = Model<any, NoHelpers, NoHelpers, any>;

export type FieldKind =
  | "string"
  | "number"
  | "boolean"
  | "date"
  | "objectId"
  | "array"
  | "object"
  | "map"
  | "mixed";

export interface FieldDescriptor {
  /** Full dotted path from the document root, e.g. `address.city`. For array items: the array's path. */
  path: string;
  kind: FieldKind;
  required: boolean;
  /** JSON-safe default from the schema (functions are not evaluated). */
  default?: unknown;
  enum?: Array<string | number>;
  minLength?: number;
  maxLength?: number;
  /** Regex source from `match`. */
  pattern?: string;
  min?: number;
  max?: number;
  /** Integer-only number (no Mongoose equivalent by default; set by validators we recognise). */
  integer?: boolean;
  /** Referenced model name for ObjectIds (and arrays of refs on `items`). */
  ref?: string;
  /** `select: false` in the schema: never leaves the server on any surface. */
  selectFalse?: boolean;
  /** `unique: true` on the path: a second document with the same value is a conflict. */
  unique?: boolean;
  /**
   * `immutable: true` in the schema: set on create (or in a new array item), never changed
   * after. Update schemas show it `readOnly`, and the core refuses a different value.
   */
  immutable?: boolean;
  /** Schema-level description (from a `description` option on the path), if any. */
  description?: string;
  /** Array item type. */
  items?: FieldDescriptor;
  /**
   * Most items an array may hold when written through the API, from the path's `maxItems`
   * option (`tags: {type: [String], maxItems: 20}`); write schemas default to
   * `DEFAULT_MAX_ITEMS` (1,000) without it.
   */
  maxItems?: number;
  /** Subdocument / nested object children, keyed by their own (undotted) name. */
  properties?: Record<string, FieldDescriptor>;
  /** Map value type. */
  values?: FieldDescriptor;
  /** Flags of the `match` regex (e.g. `i`); JSON Schema `pattern` has none, see jsonSchema.ts. */
  patternFlags?: string;
  /** Mongoose supplies a value when the input omits it (explicit default, or an array's `[]`). */
  hasDefault?: boolean;
  /** Managed by Mongoose: `_id`, the version key, timestamps (at any depth). */
  system?: boolean;
  /** An object backed by its own Schema (single nested or document-array item), not a plain nested path. */
  subdocument?: boolean;
  /** The Mongoose type name (`instance`), e.g. "Decimal128", "UUID", "Buffer", "Int32". */
  mongooseType?: string;
}

export interface ModelDescription {
  modelName: string;
  /** Top-level fields, keyed by name; nested objects hold their children in `properties`. */
  fields: Record<string, FieldDescriptor>;
  /** Every path (including nested and system ones) → descriptor, for quick lookup. */
  byPath: Map<string, FieldDescriptor>;
  /** Names of system fields present in the schema (`_id`, `__v`, `createdAt`, `updatedAt`). */
  systemFields: string[];
  /** Whether the schema has a boolean `deleted` path (soft delete). */
  softDelete: boolean;
  /**
   * The fields of each unique index, a path's `unique: true` and `schema.index(…, {unique: true})`
   * alike, in the schema's order; a compound index is one entry of several fields.
   */
  uniqueIndexes: string[][];
}

/** A JSON Schema object restricted to what every MCP client accepts (no $ref, no type arrays). */
export interface JsonSchema {
  type?: "object" | "string" | "number" | "integer" | "boolean" | "array" | "null";
  description?: string;
  /** The server manages the value: a body may carry it back as read, and it is ignored. */
  readOnly?: boolean;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: Array<string | number | boolean | null>;
  format?: "date-time" | "date" | "email" | "uuid";
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  propertyNames?: JsonSchema;
  default?: unknown;
  anyOf?: JsonSchema[];
  title?: string;
}
