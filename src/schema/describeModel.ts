/**
 * Describes a Mongoose model (or schema) once, as a ModelDescription every surface reads.
 * Walks `schema.paths` directly; `schema.toJSONSchema()` loses too much (see stack notes).
 */
import type { Schema } from "mongoose";
import { describeSchemaFields } from "./describeFields.js";
import { type SchemaLike, timestampNamesOf, versionKeyOf } from "./mongooseInternals.js";
import type { AnyModel, FieldDescriptor, ModelDescription } from "./types.js";

/** Indexes every real dotted path; array items share their array's path, so only their children are added. */
function indexPaths(fields: Record<string, FieldDescriptor>, byPath: Map<string, FieldDescriptor>) {
  for (const field of Object.values(fields)) {
    byPath.set(field.path, field);
    if (field.properties) indexPaths(field.properties, byPath);
    if (field.items?.properties) indexPaths(field.items.properties, byPath);
  }
}

export function describeSchema(schema: Schema | SchemaLike, modelName: string): ModelDescription {
  const schemaLike: SchemaLike = schema;
  const fields = describeSchemaFields(schemaLike);
  const byPath = new Map<string, FieldDescriptor>();
  indexPaths(fields, byPath);

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
  };
}

export function describeModel(model: AnyModel): ModelDescription {
  return describeSchema(model.schema, model.modelName);
}
