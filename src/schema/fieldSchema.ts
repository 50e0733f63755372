/**
 * Per-field JSON Schema building blocks shared by the write, output and filter generators:
 * scalar shapes, the description sentences that repeat constraints some providers drop,
 * and the rules for when a Mongoose `match` can become a JSON Schema `pattern`.
 */
import { withArticle } from "./article.js";
import type { FieldDescriptor, JsonSchema } from "./types.js";

/**
 * A MongoDB ObjectId as callers write it: 24 hex characters. The one pattern: the JSON Schemas,
 * the OpenAPI document and the core's id checks all use it.
 */
export const OBJECT_ID_PATTERN = "^[0-9a-fA-F]{24}$";
const OBJECT_ID = new RegExp(OBJECT_ID_PATTERN);

/** Whether `value` is an ObjectId's 24 hex characters (OBJECT_ID_PATTERN). */
export function isObjectIdString(value: unknown): value is string {
  return typeof value === "string" && OBJECT_ID.test(value);
}
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
  } else if (field.kind === "array" && field.maxItems !== undefined) {
    sentences.push(range(undefined, field.maxItems, " items"));
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
    ? `ObjectId of ${withArticle(field.ref)} document (24 hex characters).`
    : "ObjectId (24 hex characters).";
}

/**
 * A ref a client may write: the id, or an object carrying it as `id` or `_id` (a populated
 * read sent back). The object's other keys are the referenced document's own fields, so they
 * are allowed and ignored; the core keeps only the id (src/core/subdocumentIds.ts).
 */
export function refInputSchema(field: FieldDescriptor): JsonSchema {
  const id = (): JsonSchema => ({ type: "string", pattern: OBJECT_ID_PATTERN });
  return {
    anyOf: [
      id(),
      {
        type: "object",
        properties: { id: id(), _id: id() },
        anyOf: [{ required: ["id"] }, { required: ["_id"] }],
        additionalProperties: true,
      },
    ],
    description: `${field.ref} id (24 hex characters), or an object with its id; other keys are ignored.`,
  };
}

/** The one error a bad ref gets, at the ref's own path (never at its `id` or `_id`). */
export const REF_INPUT_ERROR =
  "must be an id (24 hex characters) or an object with it as id or _id";

/** Whether `node` is what `refInputSchema` builds (`nullable` may add a null form). */
export function isRefInputSchema(node: unknown): boolean {
  if (typeof node !== "object" || node === null) return false;
  const forms = (node as JsonSchema).anyOf;
  if (!Array.isArray(forms)) return false;
  const [id, object, ...rest] = forms as JsonSchema[];
  const props = object?.properties as Record<string, JsonSchema> | undefined;
  return (
    id?.pattern === OBJECT_ID_PATTERN &&
    props?.id?.pattern === OBJECT_ID_PATTERN &&
    props._id?.pattern === OBJECT_ID_PATTERN &&
    rest.every((form) => form.type === "null")
  );
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

/**
 * A date a client may write: an RFC 3339 date-time, or a date alone (`2031-01-01`), which
 * means 00:00 UTC. Two formats in `anyOf` because no single portable format covers both (and
 * type arrays are not portable); ajv checks either one, calendar included. Output and filter
 * schemas keep the plain date-time of `scalarTypeSchema`: the server always answers date-times.
 */
export function dateInputSchema(): JsonSchema {
  return {
    anyOf: [
      { type: "string", format: "date-time" },
      { type: "string", format: "date" },
    ],
  };
}

/** Said beside every written date, for models that read descriptions rather than formats. */
export const DATE_INPUT_SENTENCE = "A date alone means 00:00 UTC.";

/**
 * Whether `name` is a subdocument's `_id`, which serialized documents show as `id` at every
 * depth: the output schema names it so, and write bodies take it so (the core maps it back
 * to `_id` before Mongoose sees it). Not when the subdocument has a field called `id`.
 */
export function isSubdocumentId(
  name: string,
  field: FieldDescriptor,
  siblings: Record<string, FieldDescriptor>,
): boolean {
  return name === "_id" && field.system === true && field.path !== "_id" && !("id" in siblings);
}

/** The JSON types a Mixed value, or one of its list items, may take, each named. */
function typedValues(): JsonSchema[] {
  return [{ type: "string" }, { type: "number" }, { type: "boolean" }, { type: "object" }];
}

/**
 * Mixed (and Buffer) values have no single JSON type. Rather than a bare `{}`, which some
 * providers reject or read as "string", they get an `anyOf` naming each type: a string,
 * number, boolean, object, or a list of those (a list of lists is the one shape left out;
 * `nullable` adds null where the field may be empty). A Buffer is text, bytes, or the
 * `{"type": "Buffer", "data": [...]}` object it reads back as. Bodies are validated against
 * this schema, so the server accepts exactly these forms.
 */
export function anyValueSchema(field: FieldDescriptor): JsonSchema {
  if (field.mongooseType === "Buffer") {
    const bytes: JsonSchema = {
      type: "array",
      items: { type: "integer", minimum: 0, maximum: 255 },
    };
    return withDescription(
      { anyOf: [{ type: "string" }, bytes, { type: "object" }] },
      joinDescription(
        field.description,
        'Binary data: UTF-8 text, a list of bytes (0 to 255), or {"type": "Buffer", "data": [bytes]}.',
      ),
    );
  }
  return withDescription(
    { anyOf: [...typedValues(), { type: "array", items: { anyOf: typedValues() } }] },
    joinDescription(field.description, "A string, number, boolean, object, or a list of those."),
  );
}

/** Optional values may be stored as null; `anyOf` (never a type array) keeps clients happy. */
export function nullable(schema: JsonSchema): JsonSchema {
  if (schema.type === undefined && schema.anyOf === undefined) return schema;
  const { description, ...rest } = schema;
  const branches = schema.anyOf ?? [rest];
  return withDescription({ anyOf: [...branches, { type: "null" }] }, description);
}
