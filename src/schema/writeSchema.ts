/**
 * The JSON Schema of a create or update body: the model's writable, visible fields with
 * their constraints, closed objects everywhere, and constraints repeated in descriptions.
 * An update body is a JSON Merge Patch (RFC 7396): nothing in it is required, optional
 * fields take `null` to clear them, and subdocuments carry `id` as reads show it.
 */
import {
  anyValueSchema,
  constraintSentences,
  DATE_INPUT_SENTENCE,
  DECIMAL_PATTERN,
  dateInputSchema,
  isSubdocumentId,
  joinDescription,
  nullable,
  OBJECT_ID_PATTERN,
  objectIdDescription,
  portablePattern,
  refInputSchema,
  scalarTypeSchema,
  withDescription,
} from "./fieldSchema.js";
import type { HiddenFields } from "./hiddenFields.js";
import type { FieldDescriptor, JsonSchema, ModelDescription } from "./types.js";

export interface WriteSchemaOptions {
  hidden: HiddenFields;
  /**
   * Top-level names or dotted paths (at any depth: `lines.unitPriceCents` inside array items,
   * `prices.$*.cost` inside map values) no client may write: left out of a create schema, and
   * `readOnly` in an update schema. Fields marked `immutable` in the model are `readOnly` in an
   * update schema too.
   */
  readOnlyFields?: readonly string[];
  mode: "create" | "update";
  /**
   * Let clearable fields (see `isClearable`) be `null` via `anyOf: [T, {type: "null"}]`, on
   * the levels a merge patch merges (the root and the objects below it, not array items).
   * Default: true for update (a merge patch clears with null), false for create.
   */
  nullable?: boolean;
  /**
   * Update only: the body may carry the document's own `id`, as a read shows it (REST, where
   * the id is in the URL; the tools take it as their target argument). The core refuses
   * another document's id.
   */
  idInBody?: boolean;
}

interface Context {
  mode: "create" | "update";
  nullable: boolean;
  excluded: (field: FieldDescriptor) => boolean;
  /**
   * Of the excluded fields, those a read shows that no body writes (timestamps, read-only
   * fields): an update takes them back as read and ignores them (see `readBackSchema`).
   */
  readBack: (field: FieldDescriptor) => boolean;
}

/**
 * A field a read shows but no body writes, in an update body: `readOnly` (JSON Schema's word
 * for "the server manages this value"), typed as the read shows it, and ignored by the core
 * whatever it holds, so that a read sent back whole is a patch that changes what it changes
 * and nothing else.
 */
function readBackSchema(
  field: FieldDescriptor,
  ctx: Context,
  level: Level,
): JsonSchema | undefined {
  // A read shows a date as a date-time, and nothing else: the lean form.
  if (field.kind === "date") return { type: "string", format: "date-time", readOnly: true };
  // Inside it, what a read shows (hidden fields stay out of every schema).
  const shown: Context = {
    ...ctx,
    excluded: (child) => ctx.excluded(child) && !ctx.readBack(child),
  };
  const built = fieldSchema(field, shown, level);
  if (!built) return undefined;
  const { description: _description, default: _default, ...schema } = built.schema;
  return { ...schema, readOnly: true };
}

/**
 * Where an object sits. `requireable`: its required fields are listed (on update only inside
 * array items and map values, which are written whole: a patch names what changes at the
 * levels it merges). `patch`: it is merged, not replaced, so null may clear its fields.
 */
interface Level {
  requireable: boolean;
  patch: boolean;
}

/**
 * Whether a merge patch may clear the field with `null`: not managed by Mongoose, not
 * required unless it has a default (null stores the default, so the field still holds a
 * value), and (for a plain nested object, which Mongoose always keeps) holding no field that
 * must stay. The core refuses null for anything else with "is required".
 */
function isClearable(field: FieldDescriptor): boolean {
  if ((field.required && !field.hasDefault) || field.system) return false;
  if (field.kind === "object" && !field.subdocument) {
    return Object.values(field.properties ?? {}).every(isClearable);
  }
  return true;
}

/**
 * Most items any written array may hold unless its path sets `maxItems`: the validator refuses
 * more on every surface (400 / isError `validation_failed` naming the field), so a body can't
 * make the server cast, check and store an unbounded list.
 */
export const DEFAULT_MAX_ITEMS = 1000;

/**
 * Keys a stored object may have: not empty, no ".", no leading "$" (MongoDB and Mongoose maps
 * refuse them; the core refuses them at any depth). Stated on a map's keys and a Mixed value's
 * own keys, so a client's validator refuses what the server would.
 */
const STORABLE_KEY: JsonSchema = { pattern: "^[^$.][^.]*$" };
const KEY_NOTE = "Keys must not contain '.' or start with '$'.";

/** A Mixed value's object forms (itself, or in its list form) take storable keys only. */
function withStorableKeys(schema: JsonSchema): JsonSchema {
  for (const branch of schema.anyOf ?? []) {
    if (branch.type === "object") branch.propertyNames = STORABLE_KEY;
    for (const item of branch.items?.anyOf ?? []) {
      if (item.type === "object") item.propertyNames = STORABLE_KEY;
    }
  }
  return schema;
}

/** The list forms of a Mixed or Buffer value are bounded like any other array. */
function withMaxItems(schema: JsonSchema): JsonSchema {
  for (const branch of schema.anyOf ?? []) {
    if (branch.type === "array") branch.maxItems ??= DEFAULT_MAX_ITEMS;
  }
  return schema;
}

const SUBDOCUMENT_ID_SENTENCE = "The item's id as read; omit it for a new item.";
const SUBDOCUMENT_OBJECT_ID_SENTENCE =
  "The item's id as read (24 hex characters); omit it for a new item.";

interface Built {
  schema: JsonSchema;
  required: boolean;
}

function stringSchema(field: FieldDescriptor): JsonSchema {
  const schema: JsonSchema = scalarTypeSchema(field) ?? { type: "string" };
  if (field.enum) schema.enum = field.enum;
  if (field.minLength !== undefined) schema.minLength = field.minLength;
  if (field.maxLength !== undefined) schema.maxLength = field.maxLength;
  const pattern = field.mongooseType === "Decimal128" ? DECIMAL_PATTERN : portablePattern(field);
  if (pattern !== undefined) schema.pattern = pattern;
  return schema;
}

function numberSchema(field: FieldDescriptor): JsonSchema {
  const schema: JsonSchema = { type: field.integer ? "integer" : "number" };
  if (field.enum) schema.enum = field.enum;
  if (field.min !== undefined) schema.minimum = field.min;
  if (field.max !== undefined) schema.maximum = field.max;
  return schema;
}

/** The fields of one object level. */
function objectSchema(
  fields: Record<string, FieldDescriptor>,
  ctx: Context,
  level: Level,
): JsonSchema | undefined {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(fields)) {
    if (ctx.excluded(field)) {
      const back = ctx.readBack(field) ? readBackSchema(field, ctx, level) : undefined;
      if (back) properties[name] = back;
      continue;
    }
    const built = fieldSchema(field, ctx, level);
    if (!built) continue;
    let key = name;
    if (isSubdocumentId(name, field, fields)) {
      key = "id";
      built.schema.description =
        field.kind === "objectId" ? SUBDOCUMENT_OBJECT_ID_SENTENCE : SUBDOCUMENT_ID_SENTENCE;
    }
    const clearable = ctx.nullable && level.patch && isClearable(field);
    properties[key] = clearable ? nullable(built.schema) : built.schema;
    if (built.required) required.push(key);
  }
  if (Object.keys(properties).length === 0) return undefined;
  const schema: JsonSchema = { type: "object", properties };
  if (required.length > 0) schema.required = required;
  schema.additionalProperties = false;
  return schema;
}

function fieldSchema(field: FieldDescriptor, ctx: Context, level: Level): Built | undefined {
  let schema: JsonSchema | undefined;
  let required = level.requireable && field.required && !field.hasDefault;
  // Array items and map values are whole values (an array is replaced, never merged): their
  // required fields apply on create and on update alike, and null never.
  const whole: Level = { requireable: true, patch: false };
  switch (field.kind) {
    case "string":
      schema = stringSchema(field);
      break;
    case "number":
      schema = numberSchema(field);
      break;
    case "boolean":
      schema = scalarTypeSchema(field);
      break;
    case "date":
      schema = dateInputSchema();
      break;
    case "objectId":
      // A ref also takes the object a populated read shows (its `id` is kept, nothing else).
      schema = field.ref ? refInputSchema(field) : { type: "string", pattern: OBJECT_ID_PATTERN };
      break;
    case "array": {
      // Arrays are replaced whole, so each element is a complete value.
      const items = field.items ? fieldSchema(field.items, ctx, whole) : undefined;
      if (!items) return undefined;
      schema = {
        type: "array",
        items: items.schema,
        maxItems: field.maxItems ?? DEFAULT_MAX_ITEMS,
      };
      break;
    }
    case "object": {
      // On create a subdocument's own required fields apply whenever it is given; on update
      // objects merge (RFC 7396), so nothing below them is required, unless the object is
      // written whole (an array item or a map value).
      const requireable = field.subdocument
        ? ctx.mode === "create" || !level.patch
        : level.requireable;
      schema = objectSchema(field.properties ?? {}, ctx, { requireable, patch: level.patch });
      if (!schema) return undefined;
      if (!field.subdocument) required = level.requireable && (schema.required?.length ?? 0) > 0;
      break;
    }
    case "map": {
      // `Map` without `of` holds mixed values; a value schema whose fields are all hidden drops the map.
      const values = fieldSchema(
        field.values ?? { path: `${field.path}.$*`, kind: "mixed", required: false },
        ctx,
        whole,
      );
      if (!values) return undefined;
      // A patched map merges by key, and a key set to null is removed.
      const clearKeys = ctx.nullable && level.patch;
      schema = {
        type: "object",
        propertyNames: STORABLE_KEY,
        additionalProperties: clearKeys ? nullable(values.schema) : values.schema,
      };
      break;
    }
    default: {
      if (field.mongooseType === "Buffer") {
        return { schema: withMaxItems(anyValueSchema(field)), required };
      }
      const mixed = withStorableKeys(withMaxItems(anyValueSchema(field)));
      mixed.description = joinDescription(mixed.description, KEY_NOTE);
      return { schema: mixed, required };
    }
  }
  if (!schema) return undefined;
  const extra =
    field.kind === "objectId"
      ? field.ref
        ? schema.description
        : objectIdDescription(field)
      : field.kind === "date"
        ? DATE_INPUT_SENTENCE
        : undefined;
  const mapNote = field.kind === "map" ? KEY_NOTE : undefined;
  // A second document with the same value is refused (409): the caller should know beforehand.
  const uniqueNote = field.unique ? "Unique." : undefined;
  withDescription(
    schema,
    joinDescription(field.description, extra, ...constraintSentences(field), mapNote, uniqueNote),
  );
  if (ctx.mode === "create" && field.default !== undefined) schema.default = field.default;
  return { schema, required };
}

/** System keys a read never shows under these names (`_id` is shown as `id`). */
const UNREAD_SYSTEM_KEYS = new Set(["_id", "__v"]);

/** Whether a field's path is, or lies below, one of `readOnlyFields`. */
export function readOnlyMatcher(readOnlyFields: readonly string[]): (path: string) => boolean {
  const exact = new Set(readOnlyFields);
  return (path) => {
    if (exact.has(path)) return true;
    for (let dot = path.indexOf("."); dot !== -1; dot = path.indexOf(".", dot + 1)) {
      if (exact.has(path.slice(0, dot))) return true;
    }
    return false;
  };
}

export function writeSchema(
  description: ModelDescription,
  options: WriteSchemaOptions,
): JsonSchema {
  const readOnlyPath = readOnlyMatcher(options.readOnlyFields ?? []);
  // An immutable field is written on create only: an update body carries it back as read.
  const isReadOnly = (field: FieldDescriptor) =>
    readOnlyPath(field.path) || (options.mode === "update" && field.immutable === true);
  const topLevelExcluded = new Set([...description.systemFields, "id"]);
  if (description.softDelete) topLevelExcluded.add("deleted");
  const ctx: Context = {
    mode: options.mode,
    nullable: options.nullable ?? options.mode === "update",
    excluded: (field) => {
      if (topLevelExcluded.has(field.path)) return true;
      // A subdocument's own `_id` stays writable (as `id`) so a read written back keeps
      // element identity.
      if (field.system && !field.path.endsWith("._id")) return true;
      return options.hidden.isHidden(field.path) || isReadOnly(field);
    },
    // Reads show timestamps, read-only fields and the soft-delete flag, never `_id` (as
    // such), `__v` or a hidden field.
    readBack: (field) =>
      options.mode === "update" &&
      !options.hidden.isHidden(field.path) &&
      !UNREAD_SYSTEM_KEYS.has(field.path.split(".").at(-1) ?? "") &&
      (field.system || isReadOnly(field) || (description.softDelete && field.path === "deleted")),
  };
  const level: Level = { requireable: options.mode === "create", patch: true };
  const root = objectSchema(description.fields, ctx, level) ?? {
    type: "object",
    properties: {},
    additionalProperties: false,
  };
  if (options.mode === "update" && options.idInBody) {
    const idField = description.fields._id;
    const id = idField ? readBackSchema(idField, ctx, level) : undefined;
    root.properties = { id: id ?? { type: "string", readOnly: true }, ...root.properties };
  }
  // No `minProperties` on update: `{}` is a merge patch that changes nothing, and it is what a
  // read of a document with no writable field set gives back.
  return root;
}
