/**
 * Compiles a generated JSON Schema into a validator whose errors are keyed by dotted field
 * path with short, actionable messages. Messages never repeat the offending value: it may
 * be a hidden field's content or arbitrarily large.
 */
import { Ajv, type ErrorObject } from "ajv";
import addFormatsModule from "ajv-formats";
import { isRefInputSchema, REF_INPUT_ERROR } from "./fieldSchema.js";
import type { JsonSchema } from "./types.js";

export type ValidationResult =
  | { ok: true }
  | { ok: false; fields: Record<string, string>; message: string };

export type Validator = (value: unknown) => ValidationResult;

/** The key used for errors about the value as a whole. */
export const ROOT_KEY = "(root)";
/** Caps keep a hostile body from producing a huge error document. */
const MAX_FIELDS = 50;
const MAX_KEY_LENGTH = 120;

// ajv-formats is CommonJS with `exports.default`; under NodeNext the default import is the
// whole module object, so the plugin is its `.default`.
const addFormats = addFormatsModule.default;

// `unicode: false`: string lengths count UTF-16 units, as Mongoose's `minlength`/`maxlength` do
// (an emoji counts 2), so this validator refuses exactly what the model would; the tool
// descriptions say so, since JSON Schema's `maxLength` counts code points.
// ajv 8 still honours `unicode` but warns on every new instance that it is deprecated (its
// default, code points, is what it would keep): that one line is dropped, nothing else.
const UNICODE_DEPRECATION = "option unicode";
const ajvLogger = {
  log: console.log,
  warn: (...args: unknown[]) => {
    if (!String(args[0]).includes(UNICODE_DEPRECATION)) console.warn(...args);
  },
  error: console.error,
};
const ajv = new Ajv({
  allErrors: true,
  strict: false,
  coerceTypes: false,
  useDefaults: false,
  unicode: false,
  logger: ajvLogger,
});
addFormats(ajv, ["date-time", "date", "email", "uuid"]);

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

function join(base: string, key: string): string {
  return base === "" ? key : `${base}.${key}`;
}

function pathOf(error: ErrorObject): string {
  const base = error.instancePath.split("/").slice(1).map(unescapePointer).join(".");
  const params: Record<string, unknown> = error.params;
  if (error.keyword === "additionalProperties" && typeof params.additionalProperty === "string") {
    return join(base, params.additionalProperty);
  }
  if (error.keyword === "required" && typeof params.missingProperty === "string") {
    return join(base, params.missingProperty);
  }
  return base;
}

const ARTICLE_TYPES: Record<string, string> = {
  object: "an object",
  array: "an array",
  integer: "an integer",
  string: "a string",
  number: "a number",
  boolean: "a boolean",
  null: "null",
};

function plural(count: unknown, noun: string): string {
  return `${String(count)} ${noun}${count === 1 ? "" : "s"}`;
}

/** A length refusal, on every surface: lengths count UTF-16 units, as the model's do. */
export function lengthMessage(bound: "at least" | "at most", limit: unknown): string {
  return `must be ${bound} ${plural(limit, "character")} (UTF-16 units: an emoji counts 2)`;
}

function messageOf(error: ErrorObject): string {
  const params: Record<string, unknown> = error.params;
  switch (error.keyword) {
    case "additionalProperties":
      return "is not an allowed field";
    case "required":
      return "is required";
    case "type":
      return `must be ${ARTICLE_TYPES[String(params.type)] ?? String(params.type)}`;
    case "enum":
      return Array.isArray(params.allowedValues)
        ? `must be one of: ${params.allowedValues.map(String).join(", ")}`
        : "must be one of the allowed values";
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return `must be ${String(params.comparison)} ${String(params.limit)}`;
    case "minLength":
      return lengthMessage("at least", params.limit);
    case "maxLength":
      return lengthMessage("at most", params.limit);
    case "pattern":
      return `must match the pattern ${String(params.pattern)}`;
    case "format":
      return `must be a valid ${String(params.format)}`;
    case "minItems":
      return `must have at least ${plural(params.limit, "item")}`;
    case "maxItems":
      return `must have at most ${plural(params.limit, "item")}`;
    case "minProperties":
      return `must have at least ${plural(params.limit, "field")}`;
    case "maxProperties":
      return `must have at most ${plural(params.limit, "field")}`;
    case "anyOf":
    case "oneOf":
      return "does not match any allowed form";
    default:
      return "is invalid";
  }
}

/**
 * One message per path. With `anyOf`, ajv reports every failed branch: a branch's own error
 * at the path or below it beats the generic "does not match any allowed form", and a failed
 * `{type: "null"}` branch (the nullable wrapper) says nothing useful, so it is skipped.
 */
function toFields(errors: readonly ErrorObject[], root: JsonSchema): Record<string, string> {
  const fields: Record<string, string> = {};
  const generic = new Map<string, string>();
  const refs = refAlternatives(errors, root);
  for (const error of errors) {
    const ref = refs.find((at) => error.schemaPath === at || error.schemaPath.startsWith(`${at}/`));
    if (ref !== undefined) {
      // A bad ref is one mistake: named once at its path, not at each form's `id`/`_id`.
      const path = pathOf(error) || ROOT_KEY;
      if (error.schemaPath === ref && Object.keys(fields).length < MAX_FIELDS) {
        fields[path] = REF_INPUT_ERROR;
      }
      continue;
    }
    const inBranch = error.schemaPath.includes("/anyOf/");
    if (inBranch && error.keyword === "type" && error.params.type === "null") continue;
    let path = pathOf(error);
    if (path.length > MAX_KEY_LENGTH) path = `${path.slice(0, MAX_KEY_LENGTH)}…`;
    if (path === "") path = ROOT_KEY;
    const message = messageOf(error);
    if (error.keyword === "anyOf" || error.keyword === "oneOf") {
      if (!generic.has(path)) generic.set(path, message);
      continue;
    }
    if (fields[path] !== undefined) continue;
    if (Object.keys(fields).length >= MAX_FIELDS) break;
    fields[path] = message;
  }
  // The generic line only when no branch said anything at or below its path: beside
  // `settings.visibility must be ...` a `settings: does not match any allowed form` is noise.
  const named = Object.keys(fields);
  const covered = (path: string) =>
    path === ROOT_KEY
      ? named.length > 0
      : named.some((key) => key === path || key.startsWith(`${path}.`));
  for (const [path, message] of generic) {
    if (!covered(path) && Object.keys(fields).length < MAX_FIELDS) fields[path] = message;
  }
  return fields;
}

/** The schema node a `#/a/b` schema path points at (generated schemas have no `$ref`). */
function schemaAt(root: JsonSchema, schemaPath: string): unknown {
  let node: unknown = root;
  for (const segment of schemaPath.split("/").slice(1).map(unescapePointer)) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** Schema-path prefixes of the ref alternatives (`refInputSchema`) that failed. */
function refAlternatives(errors: readonly ErrorObject[], root: JsonSchema): string[] {
  return errors
    .filter((e) => e.keyword === "anyOf")
    .map((e) => e.schemaPath.slice(0, -"/anyOf".length))
    .filter((at) => isRefInputSchema(schemaAt(root, at)))
    .map((at) => `${at}/anyOf`);
}

/**
 * The detail of every validation failure. It names no field: the reasons are in `fields`, each
 * once, and a tool's error text lists them after the detail, so restating them here made every
 * sentence appear twice.
 */
export const INVALID_INPUT = "Invalid input.";

/**
 * A validator compiled on its first call: start-up stays cheap for apps with many models,
 * and each schema is still compiled once.
 */
export function lazyValidator(schema: JsonSchema): Validator {
  let compiled: Validator | undefined;
  return (value) => {
    compiled ??= compileValidator(schema);
    return compiled(value);
  };
}

/** Compiles once; cache the returned function, compiling is the expensive part. */
export function compileValidator(schema: JsonSchema): Validator {
  const validate = ajv.compile(schema);
  return (value) => {
    if (validate(value)) return { ok: true };
    const fields = toFields(validate.errors ?? [], schema);
    if (Object.keys(fields).length === 0) fields[ROOT_KEY] = "is invalid";
    return { ok: false, fields, message: INVALID_INPUT };
  };
}
