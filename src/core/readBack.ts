/**
 * What a read shows but no body writes (the `id`, timestamps, read-only fields, the soft-delete
 * flag) is in the update schema as `readOnly`, so a read sent back whole is a valid patch. The
 * core takes such values back only as they are: an unchanged one is dropped before the patch
 * applies; a changed one is a 400 naming it ("is read-only"), never silently dropped.
 */
import { isDeepStrictEqual } from "node:util";
import type { FieldDescriptor, JsonSchema } from "../schema/types.js";
import { validationFailed } from "./errors.js";
import type { PlainObject, StoredDocument } from "./types.js";

const READ_ONLY = "is read-only: send it as read, or leave it out";

function isPlainObject(value: unknown): value is PlainObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function form(schema: JsonSchema | undefined, type: "object" | "array"): JsonSchema | undefined {
  if (!schema) return undefined;
  return schema.type === type ? schema : schema.anyOf?.find((branch) => branch.type === type);
}

/** The read-only values of `body` by dotted path, and `body` without them. */
export function splitReadOnly(
  schema: JsonSchema,
  body: PlainObject,
): { patch: PlainObject; readOnly: Map<string, unknown> } {
  const readOnly = new Map<string, unknown>();
  const walk = (node: JsonSchema | undefined, value: unknown, path: string): unknown => {
    const object = form(node, "object");
    if (!isPlainObject(value) || !object?.properties) return value;
    const out: PlainObject = {};
    for (const [key, child] of Object.entries(value)) {
      const property = object.properties[key];
      const at = path ? `${path}.${key}` : key;
      if (property?.readOnly) readOnly.set(at, child);
      else out[key] = walk(property, child, at);
    }
    return out;
  };
  return { patch: walk(schema, body, "") as PlainObject, readOnly };
}

/** A ref as a read may show it (an id, or the populated object carrying it) → its id. */
function idOf(value: unknown): unknown {
  return isPlainObject(value) ? (value.id ?? value._id) : value;
}

/** Whether `given` (as a read showed it) is the stored JSON value of `field`. */
function sameValue(field: FieldDescriptor | undefined, given: unknown, stored: unknown): boolean {
  if (given === null || given === undefined) return stored === null || stored === undefined;
  switch (field?.kind) {
    case "date":
      return typeof given === "string" && typeof stored === "string"
        ? Date.parse(given) === Date.parse(stored)
        : false;
    case "objectId":
      return String(idOf(given)) === String(stored);
    case "array": {
      const items = field.items;
      return (
        Array.isArray(given) &&
        Array.isArray(stored) &&
        given.length === stored.length &&
        given.every((item, i) => sameValue(items, item, stored[i]))
      );
    }
    case "object": {
      if (!isPlainObject(given) || !isPlainObject(stored) || !field.properties) {
        return isDeepStrictEqual(given, stored);
      }
      const properties = field.properties;
      return Object.entries(given).every(([key, child]) =>
        key === "id" && properties._id
          ? String(child) === String(stored._id)
          : sameValue(properties[key], child, stored[key]),
      );
    }
    default:
      return isDeepStrictEqual(given, stored);
  }
}

function fieldAt(
  fields: Record<string, FieldDescriptor>,
  path: string,
): FieldDescriptor | undefined {
  let level: Record<string, FieldDescriptor> | undefined = fields;
  let field: FieldDescriptor | undefined;
  for (const key of path.split(".")) {
    field = level?.[key];
    level = field?.properties;
  }
  return field;
}

function storedAt(json: PlainObject, path: string): unknown {
  let value: unknown = json;
  for (const key of path.split(".")) value = isPlainObject(value) ? value[key] : undefined;
  return value;
}

/** The `readOnly` properties of an object schema, by the key the patch carries (`_id` for `id`). */
function objectForm(schema: JsonSchema | undefined): JsonSchema | undefined {
  return form(schema, "object");
}

/** The schema of a map's values, as `additionalProperties` states it (maybe nullable). */
function mapValues(schema: JsonSchema | undefined): JsonSchema | undefined {
  const values = objectForm(schema)?.additionalProperties;
  return typeof values === "object" ? values : undefined;
}

interface WholeContext {
  /** A path no client may write (readOnlyFields, and this caller's write rules). */
  readOnlyPath: (path: string) => boolean;
  errors: Record<string, string>;
}

const NEW_ITEM_READ_ONLY = "is read-only: leave it out of a new item (the server sets it)";

/**
 * A new item (no stored counterpart) may set an immutable field (it is being created), and a
 * read-only one only as its default.
 */
function newItemMaySet(field: FieldDescriptor | undefined, given: unknown, ctx: WholeContext) {
  if (given === null || given === undefined || !field) return true;
  if (field.immutable && !field.system && !ctx.readOnlyPath(field.path)) return true;
  return field.default !== undefined && sameValue(field, given, field.default);
}

/**
 * One value written whole (an array item, a map value, anything inside them), beside what is
 * stored in its place (`undefined` for a new item). A `readOnly` value that differs from the
 * stored one is an error; one left out of a stored item is put back as stored, so that the
 * whole-value replacement keeps it. Returns the value to write.
 */
function guardWhole(
  schema: JsonSchema | undefined,
  field: FieldDescriptor | undefined,
  value: unknown,
  stored: unknown,
  path: string,
  ctx: WholeContext,
): unknown {
  if (!field || value === null || value === undefined) return value;
  if (field.kind === "array" && Array.isArray(value)) {
    const itemSchema = form(schema, "array")?.items;
    const storedItems = Array.isArray(stored) ? stored : [];
    // Items with ids are matched by id (one without is new); others by position.
    const byId = objectForm(itemSchema)?.properties?.id !== undefined;
    return value.map((item, i) => {
      const counterpart = byId
        ? isPlainObject(item) && item._id !== undefined
          ? storedItems.find((s) => isPlainObject(s) && String(s._id) === String(item._id))
          : undefined
        : storedItems[i];
      return guardWhole(itemSchema, field.items, item, counterpart, `${path}.${i}`, ctx);
    });
  }
  if (field.kind === "map" && isPlainObject(value)) {
    const values = mapValues(schema);
    const storedMap = isPlainObject(stored) ? stored : {};
    const out: PlainObject = {};
    for (const [key, child] of Object.entries(value)) {
      out[key] = guardWhole(values, field.values, child, storedMap[key], `${path}.${key}`, ctx);
    }
    return out;
  }
  const object = objectForm(schema);
  if (field.kind !== "object" || !isPlainObject(value) || !object?.properties) return value;
  const storedObject = isPlainObject(stored) ? stored : undefined;
  const out: PlainObject = { ...value };
  for (const [name, property] of Object.entries(object.properties)) {
    const key = name === "id" ? "_id" : name;
    const child = field.properties?.[key];
    const at = `${path}.${key}`;
    if (!property.readOnly) {
      if (key in value) {
        out[key] = guardWhole(property, child, value[key], storedObject?.[key], at, ctx);
      }
      continue;
    }
    if (!storedObject) {
      if (!newItemMaySet(child, value[key], ctx)) ctx.errors[at] = NEW_ITEM_READ_ONLY;
    } else if (!(key in value) || value[key] === undefined) {
      if (storedObject[key] !== undefined) out[key] = storedObject[key];
    } else if (!sameValue(child, value[key], storedObject[key])) {
      ctx.errors[at] = READ_ONLY;
    }
  }
  return out;
}

/** The patch's levels that merge (the root, nested objects); what they hold whole is guarded. */
function guardMerged(
  schema: JsonSchema | undefined,
  fields: Record<string, FieldDescriptor>,
  patch: PlainObject,
  stored: PlainObject | undefined,
  prefix: string,
  ctx: WholeContext,
): PlainObject {
  const object = objectForm(schema);
  const out: PlainObject = {};
  for (const [key, value] of Object.entries(patch)) {
    const field = fields[key];
    const property = object?.properties?.[key === "_id" ? "id" : key];
    const at = `${prefix}${key}`;
    const here = stored?.[key];
    if (field?.kind === "object" && field.properties && isPlainObject(value)) {
      out[key] = guardMerged(property, field.properties, value, asObject(here), `${at}.`, ctx);
    } else if (field?.kind === "map" && isPlainObject(value)) {
      // A patched map merges by key: each value given is written whole.
      const values = mapValues(property);
      const storedMap = asObject(here);
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [
          name,
          child === null
            ? null
            : guardWhole(values, field.values, child, storedMap?.[name], `${at}.${name}`, ctx),
        ]),
      );
    } else {
      out[key] =
        field?.kind === "array" ? guardWhole(property, field, value, here, at, ctx) : value;
    }
  }
  return out;
}

function asObject(value: unknown): PlainObject | undefined {
  return isPlainObject(value) ? value : undefined;
}

/**
 * Refuses the read-only values that differ from the document (400, each named once, nothing
 * written): those the patch carried back at the levels it merges (`readOnly`, split off by
 * `splitReadOnly`; `id` is the document's own), and those inside what it writes whole (array
 * items, map values), at any depth. Returns the patch to apply: an item that is already stored
 * and leaves a read-only value out keeps the stored one.
 */
export function checkReadOnly(
  checked: { patch: PlainObject; readOnly: ReadonlyMap<string, unknown> },
  schema: JsonSchema,
  fields: Record<string, FieldDescriptor>,
  doc: StoredDocument,
  readOnlyPath: (path: string) => boolean,
): PlainObject {
  const stored = JSON.parse(
    JSON.stringify(doc.toObject({ depopulate: true, flattenMaps: true, versionKey: false })),
  ) as PlainObject;
  const errors: Record<string, string> = {};
  for (const [path, given] of checked.readOnly) {
    const same =
      path === "id"
        ? String(given) === String(stored._id)
        : sameValue(fieldAt(fields, path), given, storedAt(stored, path));
    if (!same) errors[path] = READ_ONLY;
  }
  const patch = guardMerged(schema, fields, checked.patch, stored, "", { readOnlyPath, errors });
  if (Object.keys(errors).length > 0) throw validationFailed("Invalid input.", errors);
  return patch;
}
