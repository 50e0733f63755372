/**
 * Which query operators a list filter may use on a field, per field type, and the JSON
 * Schema of one field's filter value. Anything not allowlisted here is refused.
 */
import { scalarTypeSchema } from "./fieldSchema.js";
import type { FieldDescriptor, FieldKind, JsonSchema } from "./types.js";

/** Operators refused anywhere in any input: they run code or escape the field allowlist. */
export const FORBIDDEN_OPERATORS = ["$where", "$expr", "$function", "$accumulator", "$jsonSchema"];

export const MAX_REGEX_LENGTH = 200;
export const MAX_IN_ITEMS = 100;
/** `$options` flags accepted next to `$regex` (x is stripped before compiling). */
export const REGEX_OPTIONS_PATTERN = "^[imsx]{0,4}$";

const STRING_OPERATORS = Object.freeze(["$eq", "$ne", "$in", "$nin", "$exists", "$regex"]);
const ORDERED_OPERATORS = Object.freeze([
  "$eq",
  "$ne",
  "$gt",
  "$gte",
  "$lt",
  "$lte",
  "$in",
  "$nin",
  "$exists",
]);
const BOOLEAN_OPERATORS = Object.freeze(["$eq", "$ne", "$exists"]);
const OBJECT_ID_OPERATORS = Object.freeze(["$eq", "$ne", "$in", "$nin", "$exists"]);
/** Objects, maps and mixed values can only be tested for presence; filter their leaves instead. */
const PRESENCE_OPERATORS = Object.freeze(["$exists"]);

const OPERATORS_BY_KIND: Record<FieldKind, readonly string[]> = {
  string: STRING_OPERATORS,
  number: ORDERED_OPERATORS,
  date: ORDERED_OPERATORS,
  boolean: BOOLEAN_OPERATORS,
  objectId: OBJECT_ID_OPERATORS,
  array: PRESENCE_OPERATORS,
  object: PRESENCE_OPERATORS,
  map: PRESENCE_OPERATORS,
  mixed: PRESENCE_OPERATORS,
};

/** An array filters like its items (a value matches any element); every list has `$exists`. */
function filterTarget(field: FieldDescriptor): FieldDescriptor {
  return field.kind === "array" && field.items ? field.items : field;
}

export function allowedOperators(field: FieldDescriptor): readonly string[] {
  return OPERATORS_BY_KIND[filterTarget(field).kind];
}

/** A plain filter value: the bare type, plus enum choices where the field has them. */
function plainValueSchema(field: FieldDescriptor): JsonSchema | undefined {
  const schema = scalarTypeSchema(field);
  if (schema && field.enum) schema.enum = field.enum;
  return schema;
}

function operandSchema(operator: string, value: JsonSchema): JsonSchema {
  switch (operator) {
    case "$in":
    case "$nin":
      return {
        type: "array",
        items: value,
        maxItems: MAX_IN_ITEMS,
        description: `At most ${MAX_IN_ITEMS} values.`,
      };
    case "$exists":
      return { type: "boolean" };
    case "$regex":
      return {
        type: "string",
        maxLength: MAX_REGEX_LENGTH,
        description: `Regular expression, at most ${MAX_REGEX_LENGTH} characters.`,
      };
    default:
      return value;
  }
}

/**
 * `anyOf: [plain value, {operator: operand}]`. Kinds without a plain value (objects, maps,
 * mixed) get the operator object alone: an untyped "any value" branch would also accept
 * `{"$where": ...}`.
 */
export function filterValueSchema(field: FieldDescriptor): JsonSchema {
  const target = filterTarget(field);
  const plain = plainValueSchema(target);
  const operators = allowedOperators(field);
  const properties: Record<string, JsonSchema> = {};
  for (const operator of operators) {
    // Copies, so a consumer editing one operand cannot change another.
    properties[operator] = operandSchema(operator, structuredClone(plain ?? {}));
    if (operator === "$regex") {
      properties.$options = {
        type: "string",
        pattern: REGEX_OPTIONS_PATTERN,
        description: "Regex flags: any of i, m, s, x.",
      };
    }
  }
  const operatorObject: JsonSchema = {
    type: "object",
    properties,
    additionalProperties: false,
    minProperties: 1,
  };
  return plain ? { anyOf: [plain, operatorObject] } : operatorObject;
}
