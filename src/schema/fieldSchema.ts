/**
 * Per-field JSON Schema building blocks shared by the write, output and filter generators:
 * scalar shapes, the description sentences that repeat constraints some providers drop,
 * and the rules for when a Mongoose `match` can become a JSON Schema `pattern`.
 */
import type { FieldDescriptor, JsonSchema } from "./types.js";

export const OBJECT_ID_PATTERN = "^[0-9a-fA-F]{24}$";
/** What Mongoose casts to Decimal128 from a string, minus NaN/Infinity. */
export const DECIMAL_PATTERN = "^[-+]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][-+]?\\d+)?$";

/** Regex flags that do not change what a pattern matches. */
const HARMLESS_FLAGS = /^[gyud]*$/;

/**
 * The `match` source when it can be a JSON Schema `pattern`. Flags like `i`/`m`/`s` have no
 * JSON Schema form, and validators (ajv included) compile with `u`, which rejects some
 * legacy syntax such as `[\w\-]`. Such patterns are described in words only; Mongoose
 * still enforces them on save.
 */
export function portablePattern(field: FieldDescriptor): string | undefined {
  if (field.pattern === undefined || !HARMLESS_FLAGS.test(field.patternFlags ?? "")) {
    return undefined;
  }
  try {
    new RegExp(field.pattern, "u");
    return field.pattern;
  } catch {
    return undefined;
  }
}

function range(min: number | undefined, max: number | undefined, unit: string): string | undefined {
  if (min !== undefined && max !== undefined) return `Between ${min} and ${max}${unit}.`;
  if (max !== undefined) return `At most ${max}${unit}.`;
  if (min !== undefined) return `At least ${min}${unit}.`;
  return undefined;
}

/** Sentences restating pattern/length/range, which Gemini and others silently drop. */
export function constraintSentences(field: FieldDescriptor): string[] {
  const sentences: Array<string | undefined> = [];
  if (field.kind === "string") {
    sentences.push(range(field.minLength, field.maxLength, " characters"));
    if (field.pattern !== undefined) {
      sentences.push(`Must match /${field.pattern}/${field.patternFlags ?? ""}.`);
    }
    if (field.mongooseType === "Decimal128")
      sentences.push('Decimal number as a string, e.g. "12.50".');
  } else if (field.kind === "number") {
    sentences.push(range(field.min, field.max, ""));
  }
  return sentences.filter((sentence): sentence is string => sentence !== undefined);
}

/** Joins sentences; a part without closing punctuation gets a period so sentences don't run on. */
export function joinDescription(...parts: Array<string | undefined>): string | undefined {
  const sentences: string[] = [];
  for (const part of parts) {
    const text = part?.trim();
    if (!text) continue;
    sentences.push(/[.!?:]$/.test(text) ? text : `${text}.`);
  }
  return sentences.length > 0 ? sentences.join(" ") : undefined;
}

/** Adds `description` only when there is one, keeping generated objects free of undefined keys. */
export function withDescription(schema: JsonSchema, description: string | undefined): JsonSchema {
  if (description !== undefined) schema.description = description;
  return schema;
}

export function objectIdDescription(field: FieldDescriptor): string {
  return field.ref
    ? `ObjectId of a ${field.ref} document (24 hex characters).`
    : "ObjectId (24 hex characters).";
}

/**
 * The bare type of a scalar field, without value constraints: what a filter value or an
 * output value looks like. Undefined for kinds that are not scalars.
 */
export function scalarTypeSchema(field: FieldDescriptor): JsonSchema | undefined {
  switch (field.kind) {
    case "string":
      return field.mongooseType === "UUID"
        ? { type: "string", format: "uuid" }
        : { type: "string" };
    case "number":
      return { type: field.integer ? "integer" : "number" };
    case "boolean":
      return { type: "boolean" };
    case "date":
      return { type: "string", format: "date-time" };
    case "objectId":
      return {
        type: "string",
        pattern: OBJECT_ID_PATTERN,
        description: objectIdDescription(field),
      };
    default:
      return undefined;
  }
}

/** Mixed (and Buffer) values have no single JSON type; a schema without `type` accepts any. */
export function anyValueSchema(field: FieldDescriptor): JsonSchema {
  const what = field.mongooseType === "Buffer" ? "Binary data." : "Any JSON value.";
  return { description: joinDescription(field.description, what) };
}

/** Optional values may be stored as null; `anyOf` (never a type array) keeps clients happy. */
export function nullable(schema: JsonSchema): JsonSchema {
  if (schema.type === undefined && schema.anyOf === undefined) return schema;
  const { description, ...rest } = schema;
  const branches = schema.anyOf ?? [rest];
  return withDescription({ anyOf: [...branches, { type: "null" }] }, description);
}
