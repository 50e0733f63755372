/**
 * The default serializer: a Mongoose document (with populated refs) becomes plain JSON with
 * a string `id` instead of `_id`, ISO dates, hex ObjectIds and no `__v`.
 */
import type { PlainObject, StoredDocument } from "./types.js";

function renameIds(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map(renameIds);
  }
  if (typeof value !== "object" || value === null) {
    return value;
  }
  const source = value as PlainObject;
  const out: PlainObject = {};
  if ("_id" in source && source._id !== undefined && source._id !== null) {
    out.id = String(source._id);
  }
  for (const [key, child] of Object.entries(source)) {
    if (key === "_id" || key === "__v" || key === "id") continue;
    out[key] = renameIds(child);
  }
  return out;
}

/** A Mongoose document, or a plain object already (a lean result). */
function isDocument(doc: unknown): doc is StoredDocument {
  return typeof (doc as { toObject?: unknown } | null)?.toObject === "function";
}

export function serializeDocument(doc: unknown): PlainObject {
  const object = isDocument(doc)
    ? doc.toObject({ virtuals: false, versionKey: false, flattenMaps: true, depopulate: false })
    : doc;
  // JSON round trip: ObjectId → hex string, Date → ISO string, Map → object, in one pass.
  return renameIds(JSON.parse(JSON.stringify(object))) as PlainObject;
}
