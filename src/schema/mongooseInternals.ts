/**
 * Typed, read-only accessors for the Mongoose SchemaType internals the describer needs.
 * Mongoose 8 and 9 name a few of them differently; every such difference lives here.
 */

export type UnknownRecord = Record<string, unknown>;

/** The parts of a Mongoose `Schema` we read. Structural, so a Mongoose 8 schema fits too. */
export interface SchemaLike {
  paths: Record<string, unknown>;
  options?: unknown;
  /** Set by Mongoose (8 and 9) when timestamps are on: the resolved field names. */
  $timestamps?: unknown;
}

export function isRecord(value: unknown): value is UnknownRecord {
  return typeof value === "object" && value !== null;
}

/** A SchemaType is anything with a string `instance` ("String", "Array", "Embedded"...). */
export function isSchemaType(value: unknown): value is UnknownRecord {
  return isRecord(value) && typeof value.instance === "string";
}

function isSchemaLike(value: unknown): value is SchemaLike {
  return (isRecord(value) || typeof value === "function") && isRecord(Reflect.get(value, "paths"));
}

export function instanceOf(schemaType: UnknownRecord): string {
  return typeof schemaType.instance === "string" ? schemaType.instance : "Mixed";
}

export function optionsOf(schemaType: UnknownRecord): UnknownRecord {
  return isRecord(schemaType.options) ? schemaType.options : {};
}

/**
 * The schema of a document array or single nested subdocument. Both majors put it on
 * `.schema`; Mongoose 8 document arrays also expose it on the `caster` constructor.
 */
export function subSchemaOf(schemaType: UnknownRecord): SchemaLike | undefined {
  if (isSchemaLike(schemaType.schema)) return schemaType.schema;
  const caster = schemaType.caster;
  if (typeof caster === "function" && isSchemaLike(Reflect.get(caster, "schema"))) {
    return Reflect.get(caster, "schema");
  }
  return undefined;
}

/**
 * The SchemaType of an array's items. Mongoose 9 calls it `embeddedSchemaType`; Mongoose 8
 * used `caster` (a SchemaType for primitive arrays, a constructor for document arrays) and
 * also had `$embeddedSchemaType`.
 */
export function arrayItemTypeOf(schemaType: UnknownRecord): UnknownRecord | undefined {
  for (const key of ["embeddedSchemaType", "$embeddedSchemaType", "caster"]) {
    const candidate = schemaType[key];
    if (isSchemaType(candidate)) return candidate;
  }
  return undefined;
}

/** The SchemaType of a Map's values (`path.$*`). */
export function mapValueTypeOf(
  schemaType: UnknownRecord,
  schema: SchemaLike | undefined,
  path: string,
): UnknownRecord | undefined {
  const getter = schemaType.getEmbeddedSchemaType;
  if (typeof getter === "function") {
    const fromGetter: unknown = getter.call(schemaType);
    if (isSchemaType(fromGetter)) return fromGetter;
  }
  if (isSchemaType(schemaType.$__schemaType)) return schemaType.$__schemaType;
  const fromPaths = schema?.paths[`${path}.$*`];
  return isSchemaType(fromPaths) ? fromPaths : undefined;
}

/**
 * Whether the path is unconditionally required. `required: fn` (and `[fn, msg]`) is
 * conditional, so it counts as not required: the database-side validation still runs it.
 */
export function isUnconditionallyRequired(schemaType: UnknownRecord): boolean {
  if (typeof schemaType.isRequired === "boolean") {
    return schemaType.isRequired && typeof schemaType.originalRequiredValue !== "function";
  }
  // Fallback for SchemaType-like objects without the computed flags: read the raw option.
  let required = optionsOf(schemaType).required;
  if (Array.isArray(required)) required = required[0];
  if (isRecord(required)) required = required.isRequired;
  return required === true;
}

/** Whether Mongoose will supply a value when the caller omits one (incl. the implicit `[]`). */
export function hasDefaultValue(schemaType: UnknownRecord): boolean {
  return schemaType.defaultValue !== undefined || optionsOf(schemaType).default !== undefined;
}

/** The validator functions attached to the path (`validate` option and built-ins). */
export function validatorFunctionsOf(schemaType: UnknownRecord): unknown[] {
  const validators = schemaType.validators;
  if (!Array.isArray(validators)) return [];
  return validators.map((entry: unknown) => (isRecord(entry) ? entry.validator : undefined));
}

function schemaOptionsOf(schema: SchemaLike): UnknownRecord {
  return isRecord(schema.options) ? schema.options : {};
}

/** The version key's name, or undefined when `versionKey: false`. */
export function versionKeyOf(schema: SchemaLike): string | undefined {
  const key = schemaOptionsOf(schema).versionKey;
  if (key === false) return undefined;
  return typeof key === "string" ? key : "__v";
}

/** The createdAt/updatedAt field names when timestamps are on (names may be custom). */
export function timestampNamesOf(schema: SchemaLike): string[] {
  const names: string[] = [];
  const resolved = schema.$timestamps;
  if (isRecord(resolved)) {
    for (const key of ["createdAt", "updatedAt"]) {
      const name = resolved[key];
      if (typeof name === "string") names.push(name);
    }
    return names;
  }
  // Fallback when `$timestamps` is absent: interpret the option the way Mongoose does.
  const option = schemaOptionsOf(schema).timestamps;
  if (option === true) return ["createdAt", "updatedAt"];
  if (!isRecord(option)) return names;
  for (const key of ["createdAt", "updatedAt"]) {
    const value = option[key];
    if (typeof value === "string") names.push(value);
    else if (value === undefined || value === true) names.push(key);
  }
  return names;
}

/** The parts of a hydrated document the default lookup reads (a Mongoose 8 document fits). */
interface DocumentLike {
  schema: { path(path: string): unknown };
}

/**
 * The value Mongoose would give `path` of `doc` when it is missing (functions called as
 * Mongoose calls them, the implicit `[]` of arrays included), or undefined without a default.
 */
export function defaultValueOf(doc: DocumentLike, path: string): unknown {
  const schemaType = doc.schema.path(path);
  if (!isSchemaType(schemaType) || !hasDefaultValue(schemaType)) return undefined;
  const getDefault = schemaType.getDefault;
  if (typeof getDefault !== "function") return undefined;
  const value: unknown = getDefault.call(schemaType, doc, false);
  return value ?? undefined;
}
