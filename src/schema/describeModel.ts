/**
 * Describes a Mongoose model (or schema) once, as a ModelDescription every surface reads.
 * Walks `schema.paths` directly; `schema.toJSONSchema()` loses too much (see stack notes).
 */
import type { Schema } from "mongoose";
import { describeSchemaFields } from "./describeFields.js";
import { isRecord, type SchemaLike, timestampNamesOf, versionKeyOf } from "./mongooseInternals.js";
import type { AnyModel, FieldDescriptor, ModelDescription } from "./types.js";

/** Indexes every real dotted path; array items share their array's path, so only their children are added. */
function indexPaths(fields: Record<string, FieldDescriptor>, byPath: Map<string, FieldDescriptor>) {
  for (const field of Object.values(fields)) {
    byPath.set(field.path, field);
    if (field.properties) indexPaths(field.properties, byPath);
    if (field.items?.properties) indexPaths(field.items.properties, byPath);
  }
}

/**
 * The fields of each unique index, from `schema.indexes()` (which lists a path's `unique: true`
 * too, nested paths prefixed). Hand-built schema-likes without `indexes()` have none.
 */
function uniqueIndexesOf(schema: Schema | SchemaLike): string[][] {
  const indexes: unknown = Reflect.get(schema, "indexes");
  if (typeof indexes !== "function") return [];
  const listed: unknown = indexes.call(schema);
  if (!Array.isArray(listed)) return [];
  const seen = new Set<string>();
  const out: string[][] = [];
  for (const entry of listed) {
    if (!Array.isArray(entry)) continue;
    const [spec, options]: unknown[] = entry;
    if (!isRecord(spec) || !isRecord(options) || !options.unique) continue;
    const fields = Object.keys(spec);
    const key = fields.join("\0");
    if (fields.length === 0 || seen.has(key)) continue;
    seen.add(key);
    out.push(fields);
  }
  return out;
}

export function describeSchema(schema: Schema | SchemaLike, modelName: string): ModelDescription {
  const schemaLike: SchemaLike = schema;
  const fields = describeSchemaFields(schemaLike);
  const byPath = new Map<string, FieldDescriptor>();
  indexPaths(fields, byPath);

  const uniqueIndexes = uniqueIndexesOf(schema);
  // A single-field unique index declared on the schema makes its field as unique as the option.
  for (const [path, ...rest] of uniqueIndexes) {
    const field = byPath.get(path);
    if (rest.length === 0 && field) field.unique = true;
  }

  const candidates = ["_id", versionKeyOf(schemaLike), ...timestampNamesOf(schemaLike)];
  const systemFields = candidates.filter(
    (name): name is string => name !== undefined && fields[name] !== undefined,
  );
  return {
    modelName,
    fields,
    byPath,
    systemFields,
    softDelete: fields.deleted?.kind === "boolean",
    uniqueIndexes,
  };
}

export function describeModel(model: AnyModel): ModelDescription {
  return describeSchema(model.schema, model.modelName);
}
