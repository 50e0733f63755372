/**
 * Update bodies are JSON Merge Patches (RFC 7396) on every surface: nested objects merge,
 * `null` clears a field (a field with a default takes its default back: the stored document
 * then holds what reads, filters and sorts would otherwise disagree on), arrays (and every
 * other value) are replaced whole.
 *
 * Hand-written, not taken from a library such as json-merge-patch: those merge plain JSON,
 * while here the patch is applied to a loaded Mongoose document path by path, so that only the
 * paths it names are `$set`/`$unset`. Siblings the caller cannot see (hidden, `select: false`,
 * read-only) and fields others changed meanwhile stay as stored. Only values with no schema
 * below them (Mixed, Map) are merged as JSON, by the RFC's own few lines (`mergeJson`).
 */
import { isDeepStrictEqual } from "node:util";
import { defaultValueOf } from "../schema/mongooseInternals.js";
import type { FieldDescriptor, JsonSchema } from "../schema/types.js";
import type { FieldErrors } from "./errors.js";
import type { PlainObject, StoredDocument } from "./types.js";

function isPlainObject(value: unknown): value is PlainObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** RFC 7396 §2, MergePatch(Target, Patch), on plain JSON; neither argument is modified. */
function mergeJson(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const result: PlainObject = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergeJson(result[key], value);
  }
  return result;
}

function acceptsNull(schema: JsonSchema): boolean {
  if (schema.type === undefined && schema.anyOf === undefined) return true; // any JSON value
  return schema.type === "null" || (schema.anyOf ?? []).some((branch) => branch.type === "null");
}

function objectBranch(schema: JsonSchema): JsonSchema | undefined {
  return schema.type === "object" ? schema : schema.anyOf?.find((b) => b.type === "object");
}

/**
 * The nulls of a patch that would clear a field that must stay (the update schema does not
 * let it be null), each named "is required". Fields the schema does not list are left to the
 * validator, which refuses them as unknown: a hidden field is never named as required.
 */
export function requiredNulls(schema: JsonSchema, patch: PlainObject, prefix = ""): FieldErrors {
  const errors: FieldErrors = {};
  for (const [key, value] of Object.entries(patch)) {
    const property = schema.properties?.[key];
    if (!property || property.readOnly) continue;
    const path = `${prefix}${key}`;
    if (value === null) {
      if (!acceptsNull(property)) errors[path] = "is required";
    } else if (isPlainObject(value)) {
      const object = objectBranch(property);
      if (object?.properties) Object.assign(errors, requiredNulls(object, value, `${path}.`));
    }
  }
  return errors;
}

/** The document as plain JSON (ids as hex, dates as ISO strings), to compare patch values with. */
function storedJson(doc: StoredDocument): PlainObject {
  const object = doc.toObject({
    depopulate: true,
    flattenMaps: true,
    virtuals: false,
    versionKey: false,
  });
  return JSON.parse(JSON.stringify(object)) as PlainObject;
}

function toJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

/**
 * What `null` leaves in a field: its default (a nested object keeps the defaults of its own
 * fields, `settings: null` → `{visibility: "private"}`), or undefined (removed) without one.
 */
function resetValue(doc: StoredDocument, field: FieldDescriptor): unknown {
  if (field.kind === "object" && !field.subdocument && field.properties) {
    const defaults: PlainObject = {};
    for (const [name, child] of Object.entries(field.properties)) {
      const value = resetValue(doc, child);
      if (value !== undefined) defaults[name] = value;
    }
    return Object.keys(defaults).length > 0 ? defaults : undefined;
  }
  return field.hasDefault ? defaultValueOf(doc, field.path) : undefined;
}

function applyLevel(
  doc: StoredDocument,
  fields: Record<string, FieldDescriptor> | undefined,
  patch: PlainObject,
  prefix: string,
  stored: unknown,
): void {
  const current = isPlainObject(stored) ? stored : {};
  for (const [key, value] of Object.entries(patch)) {
    const path = `${prefix}${key}`;
    const field = fields?.[key];
    const before = current[key];
    if (value === null) {
      // A field with a default takes it back, so reads, filters and sorts see one value.
      const reset = field ? resetValue(doc, field) : undefined;
      if (reset === undefined) {
        if (before !== undefined) doc.set(path, undefined);
      } else if (!isDeepStrictEqual(before, toJson(reset))) {
        doc.set(path, reset);
      }
      continue;
    }
    // Into an object (even an absent one), path by path. A stored `null` (written by other
    // code) takes the merged value whole instead: MongoDB refuses a `$set` below a null.
    if (field?.kind === "object" && field.properties && isPlainObject(value) && before !== null) {
      applyLevel(doc, field.properties, value, `${path}.`, before);
      continue;
    }
    const merged = field?.kind === "map" || field?.kind === "mixed" || field?.kind === "object";
    const next = merged && isPlainObject(value) ? mergeJson(before, value) : value;
    // Equal values are not set: Mongoose would mark a re-set array modified, bumping
    // `updatedAt` and `__v` for a write that changes nothing.
    if (isDeepStrictEqual(before, next)) continue;
    doc.set(path, next);
    if (field?.kind === "mixed") doc.markModified(path);
  }
}

/**
 * Applies a validated patch (subdocument ids already as `_id`) to a loaded document. Nothing
 * is written here: the caller saves, and Mongoose validates before it writes.
 */
export function applyMergePatch(
  doc: StoredDocument,
  patch: PlainObject,
  fields: Record<string, FieldDescriptor>,
): void {
  applyLevel(doc, fields, patch, "", storedJson(doc));
}
