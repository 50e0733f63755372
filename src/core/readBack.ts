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

/**
 * Refuses the read-only values that differ from the document (400, each named once); `id`
 * is the document's own. `stored` is the document as plain JSON (ids hex, dates ISO).
 */
export function assertReadOnlyUnchanged(
  readOnly: ReadonlyMap<string, unknown>,
  fields: Record<string, FieldDescriptor>,
  doc: StoredDocument,
): void {
  if (readOnly.size === 0) return;
  const stored = JSON.parse(
    JSON.stringify(doc.toObject({ depopulate: true, flattenMaps: true, versionKey: false })),
  ) as PlainObject;
  const errors: Record<string, string> = {};
  for (const [path, given] of readOnly) {
    const same =
      path === "id"
        ? String(given) === String(stored._id)
        : sameValue(fieldAt(fields, path), given, storedAt(stored, path));
    if (!same) errors[path] = READ_ONLY;
  }
  if (Object.keys(errors).length > 0) throw validationFailed("Invalid input.", errors);
}
