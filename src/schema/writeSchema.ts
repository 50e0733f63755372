/**
 * The JSON Schema of a create or update body: the model's writable, visible fields with
 * their constraints, closed objects everywhere, and constraints repeated in descriptions.
 */
import {
  anyValueSchema,
  constraintSentences,
  DECIMAL_PATTERN,
  joinDescription,
  nullable,
  OBJECT_ID_PATTERN,
  objectIdDescription,
  portablePattern,
  scalarTypeSchema,
  withDescription,
} from "./fieldSchema.js";
import type { HiddenFields } from "./hiddenFields.js";
import type { FieldDescriptor, JsonSchema, ModelDescription } from "./types.js";

export interface WriteSchemaOptions {
  hidden: HiddenFields;
  /** Top-level names or dotted paths no client may write; they are left out of the schema. */
  readOnlyFields?: readonly string[];
  mode: "create" | "update";
  /**
   * Let optional fields be `null` (to clear them) via `anyOf: [T, {type: "null"}]`.
   * Default false: plain types are easier for models to follow.
   */
  nullable?: boolean;
}

interface Context {
  mode: "create" | "update";
  nullable: boolean;
  excluded: (field: FieldDescriptor) => boolean;
}

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

/** The fields of one object level; `requireable` is false where every field is optional. */
function objectSchema(
  fields: Record<string, FieldDescriptor>,
  ctx: Context,
  requireable: boolean,
): JsonSchema | undefined {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(fields)) {
    if (ctx.excluded(field)) continue;
    const built = fieldSchema(field, ctx, requireable);
    if (!built) continue;
    properties[name] = built.required || !ctx.nullable ? built.schema : nullable(built.schema);
    if (built.required) required.push(name);
  }
  if (Object.keys(properties).length === 0) return undefined;
  const schema: JsonSchema = { type: "object", properties };
  if (required.length > 0) schema.required = required;
  schema.additionalProperties = false;
  return schema;
}

function fieldSchema(
  field: FieldDescriptor,
  ctx: Context,
  requireable: boolean,
): Built | undefined {
  let schema: JsonSchema | undefined;
  let required = requireable && field.required && !field.hasDefault;
  switch (field.kind) {
    case "string":
      schema = stringSchema(field);
      break;
    case "number":
      schema = numberSchema(field);
      break;
    case "boolean":
    case "date":
      schema = scalarTypeSchema(field);
      break;
    case "objectId":
      schema = { type: "string", pattern: OBJECT_ID_PATTERN };
      break;
    case "array": {
      // Array elements are written whole, so their own required fields always apply.
      const items = field.items ? fieldSchema(field.items, ctx, true) : undefined;
      if (!items) return undefined;
      schema = { type: "array", items: items.schema };
      break;
    }
    case "object": {
      // A subdocument is replaced as a whole; a plain nested object follows its parent's rule.
      schema = objectSchema(field.properties ?? {}, ctx, field.subdocument ? true : requireable);
      if (!schema) return undefined;
      if (!field.subdocument) required = requireable && (schema.required?.length ?? 0) > 0;
      break;
    }
    case "map": {
      // `Map` without `of` holds mixed values; a value schema whose fields are all hidden drops the map.
      const values = fieldSchema(
        field.values ?? { path: `${field.path}.$*`, kind: "mixed", required: false },
        ctx,
        true,
      );
      if (!values) return undefined;
      schema = { type: "object", additionalProperties: values.schema };
      break;
    }
    default:
      return { schema: anyValueSchema(field), required };
  }
  if (!schema) return undefined;
  const extra = field.kind === "objectId" ? objectIdDescription(field) : undefined;
  const mapNote = field.kind === "map" ? "Keys must not contain '.' or start with '$'." : undefined;
  withDescription(
    schema,
    joinDescription(field.description, extra, ...constraintSentences(field), mapNote),
  );
  if (ctx.mode === "create" && field.default !== undefined) schema.default = field.default;
  return { schema, required };
}

function readOnlyMatcher(readOnlyFields: readonly string[]): (path: string) => boolean {
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
  const isReadOnly = readOnlyMatcher(options.readOnlyFields ?? []);
  const topLevelExcluded = new Set([...description.systemFields, "id"]);
  if (description.softDelete) topLevelExcluded.add("deleted");
  const ctx: Context = {
    mode: options.mode,
    nullable: options.nullable ?? false,
    excluded: (field) => {
      if (topLevelExcluded.has(field.path)) return true;
      // A subdocument's own `_id` stays writable so read-modify-write keeps element identity.
      if (field.system && !field.path.endsWith("._id")) return true;
      return options.hidden.isHidden(field.path) || isReadOnly(field.path);
    },
  };
  const root = objectSchema(description.fields, ctx, options.mode === "create") ?? {
    type: "object",
    properties: {},
    additionalProperties: false,
  };
  if (options.mode === "update") root.minProperties = 1;
  return root;
}
