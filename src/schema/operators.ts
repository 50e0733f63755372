/**
 * Which query operators a list filter may use on a field, per field type, and the JSON
 * Schema of one field's filter value. Anything not allowlisted here is refused.
 */

import { scalarTypeSchema } from "./fieldSchema.js";
import { leapSecondAsNext } from "./leapSecond.js";
import type { FieldDescriptor, FieldKind, JsonSchema } from "./types.js";

/** Operators refused anywhere in any input: they run code or escape the field allowlist. */
export const FORBIDDEN_OPERATORS = ["$where", "$expr", "$function", "$accumulator", "$jsonSchema"];

export const MAX_REGEX_LENGTH = 200;
export const MAX_IN_ITEMS = 100;
/** Longest string a filter value may be (a bound on query size, not a field's own maxlength). */
export const MAX_FILTER_STRING_LENGTH = 1000;
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
  if (second === 60) return leapSecondAsNext(value);
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * A field's plain filter value: its JSON type, and its enum once. Everything else the core
 * checks on every surface (which operators, operand types, lengths, `$regex`, `$options`,
 * 24-hex ids, ISO dates, a non-empty operator object) is stated once in the filter's
 * description (operatorRules, filterRules) instead of once per operand and per field.
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

/**
 * `anyOf: [plain value, {type: "object"}]`: the value, or an operator object whose operators
 * and operands the filter's description states once for every field (issue #22: typing each
 * operand per field repeated an enum five times and cost most of a list tool's tokens). The
 * core refuses what the description rules out, on every surface, so nothing the schema
 * refuses is accepted. Kinds without a plain value (objects, maps, mixed) take only
 * `{"$exists": boolean}`, typed here in full: it is short, and an untyped branch is all they
 * would have.
 */
export function filterValueSchema(field: FieldDescriptor): JsonSchema {
  const plain = plainValueSchema(filterTarget(field));
  if (plain) return { anyOf: [plain, { type: "object" }] };
  return {
    type: "object",
    properties: { $exists: { type: "boolean" } },
    additionalProperties: false,
  };
}

/** How a list tool's filter value is written, said once before its operators. */
export const FILTER_VALUE_SENTENCE =
  "Each field: a value of its type, or a non-empty {operator: value}.";

/** What every field with a plain value takes; the rest is said per field in operatorRules. */
const COMMON_OPERATORS = ENUM_OPERATORS;

/**
 * Which operators each filterable field takes, said once: the common set, then the fields
 * that take more or fewer (`also $gt, … on dueDate, priority`), derived from allowedOperators
 * so it cannot drift from what the core accepts. Presence-only fields say it in their schema.
 */
export function operatorRules(fields: readonly FieldDescriptor[]): string {
  const also = new Map<string, string[]>();
  const no = new Map<string, string[]>();
  const add = (map: Map<string, string[]>, key: string, path: string) => {
    map.set(key, [...(map.get(key) ?? []), path]);
  };
  for (const field of fields) {
    if (!plainValueSchema(filterTarget(field))) continue;
    const allowed = allowedOperators(field);
    const extra = allowed.filter((op) => !COMMON_OPERATORS.includes(op));
    const missing = COMMON_OPERATORS.filter((op) => !allowed.includes(op));
    if (extra.length > 0) add(also, extra.join(", "), field.path);
    if (missing.length > 0) add(no, missing.join(", "), field.path);
  }
  const parts = [`Operators: ${COMMON_OPERATORS.join(", ")}`];
  for (const [ops, paths] of also) parts.push(`also ${ops} on ${paths.join(", ")}`);
  for (const [ops, paths] of no) parts.push(`no ${ops} on ${paths.join(", ")}`);
  return `${parts.join("; ")}.`;
}

/**
 * The rules the core enforces on every filter, worded once for the filter's description and
 * only for the kinds of field present: the per-operand schemas above leave them out (Gemini
 * would drop most of them anyway).
 */
export function filterRules(fields: readonly FieldDescriptor[]): string {
  const pathsOf = (kind: FieldKind) =>
    fields.filter((field) => filterTarget(field).kind === kind).map((field) => field.path);
  const operators = new Set(fields.flatMap((field) => allowedOperators(field)));
  const rules: string[] = [];
  if (operators.has("$in")) rules.push(`$in/$nin: a list of ≤${MAX_IN_ITEMS} values.`);
  rules.push("$exists: a boolean.");
  if (fields.some((field) => filterTarget(field).kind === "string" && !field.enum)) {
    rules.push(`Strings ≤${MAX_FILTER_STRING_LENGTH} chars.`);
  }
  const ids = pathsOf("objectId");
  if (ids.length > 0) rules.push(`Ids (${ids.join(", ")}): 24 hex chars.`);
  const dates = pathsOf("date");
  if (dates.length > 0) {
    rules.push(`Dates (${dates.join(", ")}): ISO 8601 date or date-time with zone.`);
  }
  if (operators.has("$regex")) {
    rules.push(
      `$regex: JS regex ≤${MAX_REGEX_LENGTH} chars without NUL, with optional $options: flags imsx.`,
    );
  }
  return rules.join(" ");
}
