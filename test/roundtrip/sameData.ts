/**
 * "The same data" a round trip writes back: the read output restricted to the properties of
 * the write schema the caller is given, at every depth. That leaves out the top-level `id`,
 * and whatever the caller cannot write: server-set fields (timestamps, `ownerId` set by a
 * hook), read-only and hidden fields, populated references that are read-only. A populated
 * reference the caller may write goes back whole, as read.
 */
import type { JsonSchema } from "../../src/schema/types.js";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function sameData(value: unknown, schema: JsonSchema): unknown {
  const branches = schema.anyOf ?? [schema];
  if (Array.isArray(value)) {
    const items = branches.find((branch) => branch.type === "array")?.items;
    return items ? value.map((item) => sameData(item, items)) : value;
  }
  if (isPlainObject(value)) {
    const object = branches.find((branch) => branch.type === "object");
    const properties = object?.properties;
    // Maps and Mixed values have no properties of their own, and a populated ref takes any
    // keys (only its id is kept): they are written as read.
    if (!properties || object?.additionalProperties === true) return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key in properties)
        .map(([key, child]) => [key, sameData(child, properties[key])]),
    );
  }
  return value;
}
