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
/** Longest string a filter value may be (a bound on query size, not a field's own maxlength). */
export const MAX_FILTER_STRING_LENGTH = 1000;
/** `$options` flags accepted next to `$regex` (x is stripped before compiling). */
export const REGEX_OPTIONS_PATTERN = "^[imsx]{0,4}$";

const STRING_OPERATORS = Object.freeze(["$eq", "$ne", "$in", "$nin", "$exists", "$regex"]);
/** An enum is matched by its values: a `$regex` would only restate `$in`, so none is offered. */
const ENUM_OPERATORS = Object.freeze(["$eq", "$ne", "$in", "$nin", "$exists"]);
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
const OBJECT_ID_OPERATORS = ENUM_OPERATORS;
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
  const target = filterTarget(field);
  if (target.kind === "string" && target.enum) return ENUM_OPERATORS;
  return OPERATORS_BY_KIND[target.kind];
}

/**
 * Filter dates: an ISO 8601 date (`2031-01-01`, midnight UTC) or a date-time with a zone
 * (`2031-01-01T09:30:00Z`, `…+02:00`; seconds and fractions optional). Anything else, even
 * what `Date` would guess at ("March 7, 2031"), is refused on every surface.
 */
const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2}))?$/;

export function parseFilterDate(value: string): Date | undefined {
  const match = ISO_DATE.exec(value);
  if (!match) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = match.slice(1, 7).map(Number);
  // Date rolls 2031-02-30 over to March; a calendar date that does not exist is refused.
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * The schema keeps what only it enforces on typed callers (JSON types, enums, which
 * operators exist); rules the core checks on every surface anyway (string and list lengths,
 * `$regex` length, `$options` flags, 24-hex ids, ISO dates, a non-empty operator object) are
 * stated once in the filter's description (filterRules) instead of once per operand.
 */
function plainValueSchema(field: FieldDescriptor): JsonSchema | undefined {
  const schema = scalarTypeSchema(field);
  if (!schema) return undefined;
  delete schema.description;
  delete schema.pattern;
  if (field.kind === "date") delete schema.format;
  if (field.enum) schema.enum = field.enum;
  return schema;
}

function operandSchema(operator: string, value: JsonSchema): JsonSchema {
  switch (operator) {
    case "$in":
    case "$nin":
      return { type: "array", items: value };
    case "$exists":
      return { type: "boolean" };
    case "$regex":
      return { type: "string" };
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
    if (operator === "$regex") properties.$options = { type: "string" };
  }
  const operatorObject: JsonSchema = { type: "object", properties, additionalProperties: false };
  return plain ? { anyOf: [plain, operatorObject] } : operatorObject;
}

/**
 * The rules the core enforces on every filter, worded once for the filter's description and
 * only for the kinds of field present: the per-operand schemas above leave them out (Gemini
 * would drop most of them anyway).
 */
export function filterRules(fields: readonly FieldDescriptor[]): string {
  const targets = fields.map(filterTarget);
  const has = (kind: FieldKind) => targets.some((field) => field.kind === kind);
  const operators = new Set(fields.flatMap((field) => allowedOperators(field)));
  const rules = ["Value or non-empty {operator: value}."];
  if (targets.some((field) => field.kind === "string" && !field.enum)) {
    rules.push(`Strings ≤${MAX_FILTER_STRING_LENGTH} chars.`);
  }
  if (has("objectId")) rules.push("Ids: 24 hex chars.");
  if (has("date")) rules.push("Dates: ISO 8601 date or date-time with zone.");
  if (operators.has("$in")) rules.push(`$in/$nin: ≤${MAX_IN_ITEMS} values.`);
  if (operators.has("$regex")) {
    rules.push(
      `$regex: JS regex ≤${MAX_REGEX_LENGTH} chars without NUL, plus optional $options: flags imsx.`,
    );
  }
  return rules.join(" ");
}
