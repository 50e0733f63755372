/**
 * Subdocuments are read with `id` (serialize.ts renames `_id` at every depth) and refs may be
 * read populated; both are written the way they are read, so a read can be sent back as it
 * came. This maps a validated body's subdocument `id`s back to `_id`, and each ref given as an
 * object to its id, before hooks and Mongoose see it; a subdocument's `_id` itself is refused
 * by the schema. A leap second in a date (`…T23:59:60Z`, which Mongoose cannot cast) becomes
 * the next second, as filters take it.
 */
import { isSubdocumentId } from "../schema/fieldSchema.js";
import { leapSecondAsNext } from "../schema/leapSecond.js";
import type { FieldDescriptor } from "../schema/types.js";
import type { PlainObject } from "./types.js";

function isPlainObject(value: unknown): value is PlainObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A ref written as an object (a populated read sent back): its `id`, else its `_id`. */
function refId(value: PlainObject): unknown {
  return value.id ?? value._id;
}

function mapValue(field: FieldDescriptor, value: unknown): unknown {
  if (field.kind === "date" && typeof value === "string") {
    return leapSecondAsNext(value)?.toISOString() ?? value;
  }
  if (field.kind === "objectId" && field.ref && isPlainObject(value)) return refId(value);
  if (field.kind === "array" && field.items && Array.isArray(value)) {
    const items = field.items;
    return value.map((item) => mapValue(items, item));
  }
  if (field.kind === "object" && field.properties && isPlainObject(value)) {
    return mapObject(field.properties, value);
  }
  if (field.kind === "map" && field.values && isPlainObject(value)) {
    const values = field.values;
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, mapValue(values, item)]),
    );
  }
  return value;
}

function mapObject(fields: Record<string, FieldDescriptor>, value: PlainObject): PlainObject {
  const out: PlainObject = {};
  for (const [key, child] of Object.entries(value)) {
    const field = fields[key];
    out[key] = field ? mapValue(field, child) : child;
  }
  const idField = fields._id;
  if ("id" in out && idField && isSubdocumentId("_id", idField, fields)) {
    out._id = out.id;
    delete out.id;
  }
  return out;
}

/** A copy of `body` with every subdocument's `id` renamed `_id`; the root's keys are kept. */
export function toStoredIds(
  fields: Record<string, FieldDescriptor>,
  body: PlainObject,
): PlainObject {
  return mapObject(fields, body);
}
