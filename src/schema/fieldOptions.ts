/**
 * Reads the constraint options of one SchemaType (enum, lengths, min/max, match, default,
 * ref, description, select, unique, immutable) into FieldDescriptor fields. Raw options are read, not
 * validators, because their shape is the same in Mongoose 8 and 9.
 */
import {
  isRecord,
  optionsOf,
  type UnknownRecord,
  validatorFunctionsOf,
} from "./mongooseInternals.js";
import type { FieldDescriptor } from "./types.js";

type Constraints = Pick<
  FieldDescriptor,
  | "enum"
  | "minLength"
  | "maxLength"
  | "pattern"
  | "patternFlags"
  | "min"
  | "max"
  | "integer"
  | "ref"
  | "selectFalse"
  | "unique"
  | "immutable"
  | "description"
  | "default"
>;

/** Mongoose accepts `[value, message]` for most validator options. */
function optionValue(option: unknown): unknown {
  return Array.isArray(option) ? option[0] : option;
}

function numberOption(option: unknown): number | undefined {
  const value = optionValue(option);
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** `enum` is an array, `{values, message}`, or an object whose values are the choices (TS enums). */
function enumValues(option: unknown): Array<string | number> | undefined {
  let values: unknown[] | undefined;
  if (Array.isArray(option)) values = option;
  else if (isRecord(option)) {
    values = Array.isArray(option.values) ? option.values : Object.values(option);
  }
  if (!values) return undefined;
  // null/undefined in an enum only mean "may be empty"; they are not choices a client sends.
  const choices = values.filter(
    (value): value is string | number => typeof value === "string" || typeof value === "number",
  );
  return choices.length > 0 ? choices : undefined;
}

/** A string ref, or a Model's name. Function refs are resolved per document, so they are skipped. */
function refName(option: unknown): string | undefined {
  if (typeof option === "string") return option;
  if (typeof option === "function") {
    const modelName: unknown = Reflect.get(option, "modelName");
    if (typeof modelName === "string") return modelName;
  }
  return undefined;
}

/** Literal JSON values survive; functions (Date.now), Dates, ObjectIds, class instances do not. */
function isJsonSafe(value: unknown, depth = 0): boolean {
  if (depth > 20) return false;
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((item) => isJsonSafe(item, depth + 1));
  if (isRecord(value)) {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return false;
    return Object.values(value).every((item) => isJsonSafe(item, depth + 1));
  }
  return false;
}

function matchOption(option: unknown): { source: string; flags: string } | undefined {
  const value = optionValue(option);
  return value instanceof RegExp ? { source: value.source, flags: value.flags } : undefined;
}

function isIntegerOnly(instance: string, schemaType: UnknownRecord): boolean {
  if (instance === "Int32" || instance === "BigInt") return true;
  return validatorFunctionsOf(schemaType).some((fn) => fn === Number.isInteger);
}

/** Drops undefined entries so descriptors deep-equal without noise. */
function compact<T extends object>(value: T): T {
  for (const key of Object.keys(value) as Array<keyof T>) {
    if (value[key] === undefined) delete value[key];
  }
  return value;
}

export function readConstraints(instance: string, schemaType: UnknownRecord): Constraints {
  const options = optionsOf(schemaType);
  const constraints: Constraints = {
    description: typeof options.description === "string" ? options.description : undefined,
    selectFalse: options.select === false ? true : undefined,
    // `unique: true` or `unique: [true, "message"]`.
    unique:
      options.unique === true || (Array.isArray(options.unique) && options.unique[0] === true)
        ? true
        : undefined,
    default: isJsonSafe(options.default) ? options.default : undefined,
    // Only `immutable: true`: a function decides per document, which no schema can state.
    immutable: options.immutable === true ? true : undefined,
  };
  if (instance === "String") {
    const match = matchOption(options.match);
    Object.assign(constraints, {
      enum: enumValues(options.enum),
      minLength: numberOption(options.minLength ?? options.minlength),
      maxLength: numberOption(options.maxLength ?? options.maxlength),
      pattern: match?.source,
      patternFlags: match?.flags ? match.flags : undefined,
    });
  } else if (["Number", "Double", "Int32", "BigInt"].includes(instance)) {
    Object.assign(constraints, {
      enum: enumValues(options.enum),
      min: numberOption(options.min),
      max: numberOption(options.max),
      integer: isIntegerOnly(instance, schemaType) ? true : undefined,
    });
  } else if (instance === "ObjectId") {
    constraints.ref = refName(options.ref);
  }
  return compact(constraints);
}
