/**
 * Turns a caller's list filter into a safe MongoDB filter: only allowlisted, visible fields,
 * only per-type allowlisted operators, and every value coerced to the field's schema type.
 * REST passes strings from the query string; MCP passes typed JSON; both land here.
 */
import mongoose from "mongoose";
import { allowedOperators, MAX_REGEX_LENGTH } from "../schema/operators.js";
import type { FieldDescriptor, ModelDescription } from "../schema/types.js";
import { type FieldErrors, validationFailed } from "./errors.js";
import { assertNoForbiddenKeys } from "./inputSafety.js";
import type { PlainObject } from "./types.js";
import type { SurfaceView } from "./view.js";

const MAX_IN_ITEMS = 100;
const MAX_STRING_LENGTH = 1000;

class CoercionError extends Error {}

function scalarField(field: FieldDescriptor): FieldDescriptor {
  return field.kind === "array" && field.items ? field.items : field;
}

function coerceScalar(field: FieldDescriptor, value: unknown): unknown {
  const target = scalarField(field);
  switch (target.kind) {
    case "string":
      if (typeof value !== "string") throw new CoercionError("must be a string");
      if (value.length > MAX_STRING_LENGTH) {
        throw new CoercionError(`must be at most ${MAX_STRING_LENGTH} characters`);
      }
      return value;
    case "number": {
      const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
      if (typeof number !== "number" || !Number.isFinite(number)) {
        throw new CoercionError("must be a number");
      }
      return number;
    }
    case "boolean":
      if (value === true || value === "true") return true;
      if (value === false || value === "false") return false;
      throw new CoercionError("must be true or false");
    case "date": {
      if (typeof value !== "string" && typeof value !== "number") {
        throw new CoercionError("must be a date-time string");
      }
      const date = new Date(value);
      if (Number.isNaN(date.getTime())) throw new CoercionError("must be a valid date-time");
      return date;
    }
    case "objectId":
      if (typeof value !== "string" || !/^[0-9a-fA-F]{24}$/.test(value)) {
        throw new CoercionError("must be a 24-character hex ObjectId");
      }
      return new mongoose.Types.ObjectId(value);
    default:
      throw new CoercionError(`cannot be filtered (a ${target.kind} field)`);
  }
}

function coerceList(field: FieldDescriptor, value: unknown): unknown[] {
  const items = typeof value === "string" ? value.split(",") : value;
  if (!Array.isArray(items)) throw new CoercionError("must be a list of values");
  if (items.length > MAX_IN_ITEMS) {
    throw new CoercionError(`may list at most ${MAX_IN_ITEMS} values`);
  }
  return items.map((item) => coerceScalar(field, item));
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
  try {
    return new RegExp(value, typeof options === "string" ? options.replace("x", "") : undefined);
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

function coerceCondition(field: FieldDescriptor, value: unknown): unknown {
  if (!isOperatorObject(value)) {
    if (typeof value === "object" && value !== null) {
      throw new CoercionError("must be a value or an object of operators");
    }
    return coerceScalar(field, value);
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
      condition[operator] = coerceList(field, operand);
    } else if (operator === "$exists") {
      condition[operator] = coerceScalar(
        { path: field.path, kind: "boolean", required: false },
        operand,
      );
    } else if (operator === "$regex") {
      condition[operator] = coerceRegex(operand, value.$options);
    } else {
      condition[operator] = coerceScalar(field, operand);
    }
  }
  return condition;
}

export interface FilterRules {
  description: ModelDescription;
  view: SurfaceView;
}

/** Validates and coerces a caller's filter; throws one 400 naming every bad field. */
export function buildFilter(input: PlainObject, rules: FilterRules): PlainObject {
  assertNoForbiddenKeys(input, "filter");
  const errors: FieldErrors = {};
  const filter: PlainObject = {};
  for (const [key, value] of Object.entries(input)) {
    const field = rules.description.byPath.get(key);
    if (key.startsWith("$")) {
      errors[key] = "top-level operators are not allowed; filter on a field instead";
      continue;
    }
    // Hidden fields answer exactly like unknown ones, so the error is no oracle.
    if (!field || !rules.view.filterable.includes(key)) {
      errors[key] = "is not a filterable field";
      continue;
    }
    try {
      filter[key] = coerceCondition(field, value);
    } catch (error) {
      if (!(error instanceof CoercionError)) throw error;
      errors[key] = error.message;
    }
  }
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
