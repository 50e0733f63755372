/**
 * The JSON Schema of a serialized document, for MCP `outputSchema`. MCP clients reject a
 * whole tool result that fails it, so it describes types and stays lenient about values:
 * objects are open, optional values may be null, and value constraints are left out
 * (stored documents may predate today's validators).
 */
import {
  anyValueSchema,
  isSubdocumentId,
  joinDescription,
  nullable,
  objectIdDescription,
  scalarTypeSchema,
  withDescription,
} from "./fieldSchema.js";
import type { HiddenFields } from "./hiddenFields.js";
import type { FieldDescriptor, JsonSchema, ModelDescription } from "./types.js";

export interface OutputSchemaOptions {
  hidden: HiddenFields;
}

type Excluded = (field: FieldDescriptor) => boolean;

/** A ref is an id string until populated, then an object (which may hide fields of its own). */
function refSchema(field: FieldDescriptor): JsonSchema {
  return {
    anyOf: [
      { type: "string", description: objectIdDescription(field) },
      {
        type: "object",
        additionalProperties: true,
        description: `The populated ${field.ref} document.`,
      },
    ],
  };
}

function objectSchema(fields: Record<string, FieldDescriptor>, excluded: Excluded): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [name, field] of Object.entries(fields)) {
    if (excluded(field)) continue;
    const schema = valueSchema(field, excluded);
    // Serialized subdocuments carry their `_id` as `id`, like the document itself.
    if (schema) properties[isSubdocumentId(name, field, fields) ? "id" : name] = schema;
  }
  // Open: serializers may add virtuals (e.g. `id` on subdocuments).
  return { type: "object", properties, additionalProperties: true };
}

function baseSchema(field: FieldDescriptor, excluded: Excluded): JsonSchema | undefined {
  switch (field.kind) {
    case "objectId":
      return field.ref
        ? refSchema(field)
        : { type: "string", description: objectIdDescription(field) };
    case "array": {
      const items = field.items ? baseSchema(field.items, excluded) : undefined;
      return items ? { type: "array", items } : undefined;
    }
    case "object": {
      const schema = objectSchema(field.properties ?? {}, excluded);
      return Object.keys(schema.properties ?? {}).length > 0 ? schema : undefined;
    }
    case "map":
      return {
        type: "object",
        additionalProperties: field.values ? (baseSchema(field.values, excluded) ?? {}) : {},
      };
    case "mixed":
      return anyValueSchema(field);
    default:
      // Decimal128 serializes as `{$numberDecimal}` unless a getter flattens it: accept either.
      if (field.mongooseType === "Decimal128") {
        return { description: joinDescription(field.description, "Decimal number.") };
      }
      return scalarTypeSchema(field);
  }
}

function valueSchema(field: FieldDescriptor, excluded: Excluded): JsonSchema | undefined {
  const schema = baseSchema(field, excluded);
  if (!schema) return undefined;
  if (field.kind !== "objectId" && field.kind !== "mixed" && field.mongooseType !== "Decimal128") {
    const choices = field.enum ? `One of: ${field.enum.join(", ")}.` : undefined;
    withDescription(schema, joinDescription(field.description, choices));
  } else if (field.kind === "objectId" && field.description !== undefined) {
    schema.description = joinDescription(field.description, schema.description);
  }
  // A populated ref to a deleted document comes back null, even on a required path.
  return field.required && !field.ref ? schema : nullable(schema);
}

export function outputSchema(
  description: ModelDescription,
  options: OutputSchemaOptions,
): JsonSchema {
  // `_id` and the version key are replaced by `id` in serialized documents; timestamps stay.
  const rootDropped = new Set(["_id", "id"]);
  for (const name of description.systemFields) {
    if (description.fields[name]?.kind !== "date") rootDropped.add(name);
  }
  const excluded: Excluded = (field) =>
    rootDropped.has(field.path) || options.hidden.isHidden(field.path);
  const document = objectSchema(description.fields, excluded);
  return {
    type: "object",
    properties: {
      id: { type: "string", description: "The document's id." },
      ...document.properties,
    },
    required: ["id"],
    additionalProperties: true,
  };
}
