/**
 * Closed inputs for actions and custom tools: every plain object of a zod input's JSON Schema
 * gets `additionalProperties: false` (records, loose/catchall objects and intersections keep
 * what zod says), and a value's keys are checked against that closed schema before zod runs,
 * so that `{bogus: 1}` is refused instead of silently stripped.
 */
import type { FieldErrors } from "./errors.js";

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Zod's JSON Schema with its plain objects closed (a new tree; the input is not changed). */
export function closeObjects(node: unknown, inAllOf = false): unknown {
  if (Array.isArray(node)) return node.map((item) => closeObjects(item, inAllOf));
  if (!isNode(node)) return node;
  const out: Node = {};
  for (const [key, value] of Object.entries(node)) {
    // The parts of an intersection are each open to the other's keys.
    if (key === "allOf") out[key] = (value as unknown[]).map((part) => closeObjects(part, true));
    else if (key === "properties" && isNode(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, closeObjects(child)]),
      );
    } else out[key] = closeObjects(value);
  }
  const plainObject =
    out.type === "object" &&
    out.additionalProperties === undefined &&
    out.patternProperties === undefined &&
    out.propertyNames === undefined;
  if (plainObject && !inAllOf) out.additionalProperties = false;
  return out;
}

const objectBranches = (node: Node): Node[] =>
  [...((node.anyOf as unknown[]) ?? []), ...((node.oneOf as unknown[]) ?? [])].filter(
    (branch): branch is Node => isNode(branch) && branch.type === "object",
  );

function check(value: unknown, schema: unknown, path: string, errors: FieldErrors): void {
  if (!isNode(schema)) return;
  const at = (key: string) => (path ? `${path}.${key}` : key);
  if (Array.isArray(value)) {
    if (isNode(schema.items)) {
      value.forEach((item, i) => {
        check(item, schema.items, at(String(i)), errors);
      });
    }
    return;
  }
  if (!isNode(value)) return;
  const branches = objectBranches(schema);
  // A nullable object (one object branch) is checked as that object; a union of several
  // objects refuses only a key that no closed branch names, and is not checked deeper.
  if (branches.length === 1) {
    check(value, branches[0], path, errors);
    return;
  }
  if (branches.length > 1) {
    if (branches.some((branch) => branch.additionalProperties !== false)) return;
    for (const key of Object.keys(value)) {
      if (!branches.some((branch) => isNode(branch.properties) && key in branch.properties)) {
        errors[at(key)] = "is not an allowed field";
      }
    }
    return;
  }
  const properties = isNode(schema.properties) ? schema.properties : {};
  for (const [key, child] of Object.entries(value)) {
    if (Object.hasOwn(properties, key)) check(child, properties[key], at(key), errors);
    else if (schema.additionalProperties === false) errors[at(key)] = "is not an allowed field";
  }
}

/** The keys of `value` that the closed schema does not allow, by argument path. */
export function unknownKeyErrors(value: unknown, closedSchema: unknown): FieldErrors {
  const errors: FieldErrors = {};
  check(value, closedSchema, "", errors);
  return errors;
}
