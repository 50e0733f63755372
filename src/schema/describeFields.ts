/**
 * Turns one Schema's paths into a FieldDescriptor tree: one SchemaType at a time, recursing
 * into arrays, subdocuments and maps, and rebuilding plain nested objects from dotted paths.
 */
import { readConstraints } from "./fieldOptions.js";
import {
  arrayItemTypeOf,
  hasDefaultValue,
  instanceOf,
  isSchemaType,
  isUnconditionallyRequired,
  mapValueTypeOf,
  optionsOf,
  type SchemaLike,
  subSchemaOf,
  timestampNamesOf,
  type UnknownRecord,
  versionKeyOf,
} from "./mongooseInternals.js";
import type { FieldDescriptor, FieldKind } from "./types.js";

/**
 * Mongoose type name → our kind. Decimal128 is a string so no precision is lost on the way
 * in; BigInt and Int32 are integers; Buffer has no single JSON form, so it is mixed.
 */
const KIND_BY_INSTANCE: Record<string, FieldKind> = {
  String: "string",
  Number: "number",
  Double: "number",
  Int32: "number",
  BigInt: "number",
  Decimal128: "string",
  UUID: "string",
  Boolean: "boolean",
  Date: "date",
  ObjectId: "objectId",
  Mixed: "mixed",
  Buffer: "mixed",
};

const CANONICAL_INSTANCES = new Set(["String", "Number", "Boolean", "Date", "ObjectId", "Mixed"]);

function describeSubschema(path: string, schema: SchemaLike): FieldDescriptor {
  return {
    path,
    kind: "object",
    required: false,
    subdocument: true,
    properties: describeSchemaFields(schema, path),
  };
}

/**
 * Describes one SchemaType at `path`. Exported so the Mongoose 8 shapes (`caster`) can be
 * tested with hand-built objects; `schema` is the owning schema, used for map `.$*` lookups.
 */
export function describeSchemaType(
  path: string,
  schemaType: UnknownRecord,
  schema?: SchemaLike,
): FieldDescriptor {
  const instance = instanceOf(schemaType);
  const base: FieldDescriptor = {
    path,
    kind: "mixed",
    required: isUnconditionallyRequired(schemaType),
    ...readConstraints(instance, schemaType),
  };
  if (hasDefaultValue(schemaType)) base.hasDefault = true;

  const subSchema = subSchemaOf(schemaType);
  if (instance === "Array") {
    base.kind = "array";
    const maxItems = optionsOf(schemaType).maxItems;
    if (typeof maxItems === "number" && Number.isInteger(maxItems) && maxItems >= 0) {
      base.maxItems = maxItems;
    }
    base.items = subSchema
      ? describeSubschema(path, subSchema)
      : describeItem(path, arrayItemTypeOf(schemaType));
    return base;
  }
  if (subSchema) {
    // Single nested subdocument ("Embedded" in 9, "Embedded"/"SubdocumentPath" in 8).
    return { ...base, ...describeSubschema(path, subSchema), required: base.required };
  }
  if (instance === "Map") {
    base.kind = "map";
    base.values = describeItem(`${path}.$*`, mapValueTypeOf(schemaType, schema, path));
    return base;
  }
  base.kind = KIND_BY_INSTANCE[instance] ?? "mixed";
  // Only the non-obvious types are tagged, so consumers can special-case them.
  if (!CANONICAL_INSTANCES.has(instance)) base.mongooseType = instance;
  return base;
}

/** Array items and map values: untyped (`[]`, `Map` without `of`) means mixed. */
function describeItem(path: string, itemType: UnknownRecord | undefined): FieldDescriptor {
  if (!itemType || !isSchemaType(itemType)) return { path, kind: "mixed", required: false };
  const item = describeSchemaType(path, itemType);
  // Item-level required/default describe elements, not the input field; keep the descriptor lean.
  item.required = false;
  delete item.hasDefault;
  return item;
}

/** Every path of `schema` as a tree keyed by undotted names; `basePath` prefixes full paths. */
export function describeSchemaFields(
  schema: SchemaLike,
  basePath = "",
): Record<string, FieldDescriptor> {
  const fields: Record<string, FieldDescriptor> = {};
  const systemNames = new Set(["_id", ...timestampNamesOf(schema)]);
  const versionKey = versionKeyOf(schema);
  if (versionKey) systemNames.add(versionKey);

  for (const [key, schemaType] of Object.entries(schema.paths)) {
    // `meta.$*` (map values) and `tags.$` are reached through their parent path.
    if (key.includes(".$") || !isSchemaType(schemaType)) continue;
    const segments = key.split(".");
    const leafName = segments.pop() ?? key;
    let container = fields;
    let prefix = basePath;
    let ok = true;
    for (const segment of segments) {
      prefix = prefix ? `${prefix}.${segment}` : segment;
      // Plain nested objects only exist as dotted paths; rebuild them in first-seen order.
      container[segment] ??= { path: prefix, kind: "object", required: false, properties: {} };
      const parent = container[segment];
      if (parent.kind !== "object" || !parent.properties) {
        ok = false;
        break;
      }
      container = parent.properties;
    }
    if (!ok) continue;
    const fullPath = basePath ? `${basePath}.${key}` : key;
    const field = describeSchemaType(fullPath, schemaType, schema);
    if (segments.length === 0 && systemNames.has(key)) field.system = true;
    container[leafName] = field;
  }
  return fields;
}
