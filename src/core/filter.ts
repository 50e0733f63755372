/**
 * Turns a caller's list filter into a safe MongoDB filter: only allowlisted, visible fields,
 * only per-type allowlisted operators, and every value coerced to the field's schema type.
 * REST passes strings from the query string; MCP passes typed JSON; both land here.
 */

import { isDeepStrictEqual } from "node:util";
import mongoose from "mongoose";
import { withArticle } from "../schema/article.js";
import { isObjectIdString } from "../schema/fieldSchema.js";
import {
  allowedOperators,
  MAX_FILTER_STRING_LENGTH,
  MAX_IN_ITEMS,
  MAX_REGEX_LENGTH,
  parseFilterDate,
} from "../schema/operators.js";
import type { FieldDescriptor, ModelDescription } from "../schema/types.js";
import { lengthMessage } from "../schema/validator.js";
import { type FieldErrors, validationFailed } from "./errors.js";
import { assertNoForbiddenKeys } from "./inputSafety.js";
import type { PlainObject } from "./types.js";
import type { SurfaceView } from "./viewTypes.js";

class CoercionError extends Error {}

function scalarField(field: FieldDescriptor): FieldDescriptor {
  return field.kind === "array" && field.items ? field.items : field;
}

/** An enum field's filter values are its choices, as the tools' schema says; others never match. */
function oneOfEnum<T extends string | number>(field: FieldDescriptor, value: T): T {
  if (field.enum && !field.enum.includes(value)) {
    throw new CoercionError(`must be one of: ${field.enum.join(", ")}`);
  }
  return value;
}

/**
 * `typed`: the caller sent JSON (the tools), so a number is a number and a boolean a boolean,
 * as the list tool's schema types them; REST's query string spells both as text.
 */
function coerceScalar(field: FieldDescriptor, value: unknown, typed: boolean): unknown {
  const target = scalarField(field);
  switch (target.kind) {
    case "string":
      if (typeof value !== "string") throw new CoercionError("must be a string");
      if (value.length > MAX_FILTER_STRING_LENGTH) {
        throw new CoercionError(lengthMessage("at most", MAX_FILTER_STRING_LENGTH));
      }
      return oneOfEnum(target, value);
    case "number": {
      const text = !typed && typeof value === "string" && value.trim() !== "";
      const number = text ? Number(value) : value;
      if (typeof number !== "number" || !Number.isFinite(number)) {
        throw new CoercionError("must be a number");
      }
      return oneOfEnum(target, number);
    }
    case "boolean":
      if (value === true || (!typed && value === "true")) return true;
      if (value === false || (!typed && value === "false")) return false;
      throw new CoercionError(typed ? "must be a boolean" : "must be true or false");
    case "date": {
      const date = typeof value === "string" ? parseFilterDate(value) : undefined;
      if (!date) {
        throw new CoercionError(
          "must be an ISO 8601 date or date-time, e.g. 2031-01-01 or 2031-01-01T09:30:00Z",
        );
      }
      return date;
    }
    case "objectId":
      if (!isObjectIdString(value)) {
        throw new CoercionError("must be a 24-character hex ObjectId");
      }
      return new mongoose.Types.ObjectId(value);
    default:
      throw new CoercionError(`cannot be filtered (${withArticle(target.kind)} field)`);
  }
}

function coerceList(field: FieldDescriptor, value: unknown, typed: boolean): unknown[] {
  const items = !typed && typeof value === "string" ? value.split(",") : value;
  if (!Array.isArray(items)) throw new CoercionError("must be a list of values");
  if (items.length > MAX_IN_ITEMS) {
    throw new CoercionError(`may list at most ${MAX_IN_ITEMS} values`);
  }
  return items.map((item) => coerceScalar(field, item, typed));
}

function coerceRegex(value: unknown, options: unknown): RegExp {
  if (typeof value !== "string") throw new CoercionError("$regex must be a string");
  if (value.length > MAX_REGEX_LENGTH) {
    throw new CoercionError(`$regex must be at most ${MAX_REGEX_LENGTH} characters`);
  }
  // BSON stores a pattern as a C string: the driver would throw on a NUL byte (a 500).
  if (value.includes("\u0000")) throw new CoercionError("$regex may not contain NUL characters");
  if (options !== undefined && (typeof options !== "string" || !/^[imsx]{0,4}$/.test(options))) {
    throw new CoercionError("$options may only contain the flags i, m, s and x");
  }
  // JavaScript has no x flag and refuses a repeated one; "ii" means what "i" means.
  const flags = typeof options === "string" ? [...new Set(options.replace(/x/g, ""))].join("") : "";
  try {
    return new RegExp(value, flags);
  } catch {
    throw new CoercionError("$regex is not a valid regular expression");
  }
}

function isOperatorObject(value: unknown): value is PlainObject {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Date) &&
    Object.keys(value).some((key) => key.startsWith("$"))
  );
}

function coerceCondition(field: FieldDescriptor, value: unknown, typed: boolean): unknown {
  if (!isOperatorObject(value)) {
    if (typeof value === "object" && value !== null) {
      throw new CoercionError("must be a value or an object of operators");
    }
    return coerceScalar(field, value, typed);
  }
  const allowed = allowedOperators(field);
  const condition: PlainObject = {};
  for (const [operator, operand] of Object.entries(value)) {
    if (operator === "$options") {
      if (!("$regex" in value)) throw new CoercionError("$options needs $regex");
      continue;
    }
    if (!allowed.includes(operator)) {
      throw new CoercionError(
        `operator ${operator} is not allowed here; use one of ${allowed.join(", ")}`,
      );
    }
    if (operator === "$in" || operator === "$nin") {
      condition[operator] = coerceList(field, operand, typed);
    } else if (operator === "$exists") {
      condition[operator] = coerceScalar(
        { path: field.path, kind: "boolean", required: false },
        operand,
        typed,
      );
    } else if (operator === "$regex") {
      condition[operator] = coerceRegex(operand, value.$options);
    } else {
      condition[operator] = coerceScalar(field, operand, typed);
    }
  }
  return condition;
}

export interface FilterRules {
  description: ModelDescription;
  view: SurfaceView;
  /**
   * The name of the argument the filter came in (`filter` on the tools), so each error path
   * is the caller's own (`filter.reminder.at`); REST's filter fields are query parameters.
   */
  argument?: string;
  /** The filter is typed JSON: no text spellings of numbers, booleans or lists. */
  typed?: boolean;
}

/** Logical combinators a filter may use, at the top level and inside their own branches. */
export const FILTER_COMBINATORS = ["$or", "$and"] as const;
/** `{$or: [{$and: [...]}]}` is two levels; a combinator inside that is refused. */
export const MAX_COMBINATOR_DEPTH = 2;
/** Branches per `$or`/`$and` array. */
export const MAX_COMBINATOR_BRANCHES = 10;

const COMBINATORS = new Set<string>(FILTER_COMBINATORS);

function isPlainRecord(value: unknown): value is PlainObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function combinatorBranches(
  key: string,
  value: unknown,
  rules: FilterRules,
  path: string,
  depth: number,
  errors: FieldErrors,
): PlainObject[] | undefined {
  if (depth > MAX_COMBINATOR_DEPTH) {
    errors[path] =
      `${key} may be nested at most ${MAX_COMBINATOR_DEPTH} levels deep ($or/$and inside a branch of $or/$and)`;
    return undefined;
  }
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_COMBINATOR_BRANCHES) {
    errors[path] =
      `must be a list of 1 to ${MAX_COMBINATOR_BRANCHES} filter objects, e.g. {"${key}": [{"a": 1}, {"b": 2}]}`;
    return undefined;
  }
  const branches: PlainObject[] = [];
  value.forEach((branch, index) => {
    const branchPath = `${path}.${index}`;
    if (!isPlainRecord(branch) || Object.keys(branch).length === 0) {
      errors[branchPath] = "must be an object naming at least one filterable field";
      return;
    }
    branches.push(buildClause(branch, rules, `${branchPath}.`, depth, errors));
  });
  return branches;
}

/**
 * One level of a filter: field conditions, plus `$or`/`$and` whose branches are clauses of
 * their own. `prefix` is the path of this clause in the caller's filter (`"$or.1."`), so each
 * error names exactly where it is; `depth` counts the combinators above this clause.
 */
function buildClause(
  input: PlainObject,
  rules: FilterRules,
  prefix: string,
  depth: number,
  errors: FieldErrors,
): PlainObject {
  const clause: PlainObject = {};
  for (const [key, value] of Object.entries(input)) {
    const path = `${prefix}${key}`;
    if (COMBINATORS.has(key)) {
      const branches = combinatorBranches(key, value, rules, path, depth + 1, errors);
      if (branches) clause[key] = branches;
      continue;
    }
    if (key.startsWith("$")) {
      errors[path] =
        `operator ${key} is not allowed here; combine conditions with $or or $and, or filter on a field`;
      continue;
    }
    const field = rules.description.byPath.get(key);
    // Hidden fields answer exactly like unknown ones, so the error is no oracle.
    if (!field || !rules.view.filterable.includes(key)) {
      errors[path] = "is not a filterable field";
      continue;
    }
    try {
      clause[key] = coerceCondition(field, value, rules.typed === true);
    } catch (error) {
      if (!(error instanceof CoercionError)) throw error;
      errors[path] = error.message;
    }
  }
  return clause;
}

/**
 * Validates and coerces a caller's filter; throws one 400 naming every bad path (`title`,
 * `$or.1.priority`). Top-level `$or`/`$and` hold 1 to 10 filter objects each, which follow the
 * same field rules and may nest `$or`/`$and` once more; no other `$` key is accepted.
 */
export function buildFilter(input: PlainObject, rules: FilterRules): PlainObject {
  assertNoForbiddenKeys(rules.argument ? { [rules.argument]: input } : input, "filter");
  const errors: FieldErrors = {};
  const filter = buildClause(input, rules, rules.argument ? `${rules.argument}.` : "", 0, errors);
  if (Object.keys(errors).length > 0) {
    const allowed = rules.view.filterable;
    const hint =
      allowed.length > 0
        ? `Filterable fields: ${allowed.join(", ")}.`
        : "This resource has no filterable fields.";
    throw validationFailed(`Invalid filter. ${hint}`, errors);
  }
  return filter;
}

/**
 * Adds `extra` to `filter` so that every condition of both must hold: a key both name is
 * kept twice under `$and`, never overwritten. Used to lay a scope over a caller's filter, so
 * no caller key (a field, `$or`, `$and`) can replace or widen it.
 */
export function conjoinFilters(filter: PlainObject, extra: PlainObject): PlainObject {
  const result: PlainObject = { ...filter };
  const both: PlainObject[] = [];
  for (const [key, value] of Object.entries(extra)) {
    if (!(key in result)) {
      result[key] = value;
    } else if (isDeepStrictEqual(result[key], value)) {
      // The same condition twice (a queryFilter that echoes the query back) adds nothing.
    } else if (key === "$and" && Array.isArray(value)) {
      both.push(...(value as PlainObject[]));
    } else {
      both.push({ [key]: value });
    }
  }
  if (both.length > 0) {
    // A malformed `$and` (only trusted configuration could hold one) is kept, never dropped.
    const existing = Array.isArray(result.$and)
      ? (result.$and as PlainObject[])
      : "$and" in result
        ? [{ $and: result.$and }]
        : [];
    result.$and = [...existing, ...both];
  }
  return result;
}
