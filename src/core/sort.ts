/**
 * Parses a caller's sort ("-createdAt,title" or `{createdAt: -1}`) into a Mongo sort on
 * visible schema fields only. Hidden fields are refused like unknown ones (no oracle).
 */
import type { HiddenFields } from "../schema/hiddenFields.js";
import type { ModelDescription } from "../schema/types.js";
import { type FieldErrors, validationFailed } from "./errors.js";

export type SortSpec = Record<string, 1 | -1>;
const MAX_SORT_KEYS = 5;
const SORTABLE_KINDS = new Set(["string", "number", "boolean", "date", "objectId"]);

function entriesOf(sort: unknown): Array<[string, unknown]> {
  if (typeof sort === "string") {
    return sort
      .split(",")
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => (part.startsWith("-") ? [part.slice(1), -1] : [part.replace(/^\+/, ""), 1]));
  }
  if (typeof sort === "object" && sort !== null && !Array.isArray(sort)) {
    return Object.entries(sort);
  }
  throw validationFailed("Invalid sort.", { sort: 'must be a string like "-createdAt,title"' });
}

function direction(value: unknown): 1 | -1 | undefined {
  if (value === 1 || value === "1" || value === "asc" || value === "ascending") return 1;
  if (value === -1 || value === "-1" || value === "desc" || value === "descending") return -1;
  return undefined;
}

export function parseSort(
  sort: unknown,
  description: ModelDescription,
  hidden: HiddenFields,
): SortSpec | undefined {
  if (sort === undefined || sort === null || sort === "") return undefined;
  const entries = entriesOf(sort);
  const errors: FieldErrors = {};
  if (entries.length > MAX_SORT_KEYS) {
    throw validationFailed("Invalid sort.", { sort: `may name at most ${MAX_SORT_KEYS} fields` });
  }
  const spec: SortSpec = {};
  for (const [path, value] of entries) {
    const field = path === "id" ? description.byPath.get("_id") : description.byPath.get(path);
    const dir = direction(value);
    if (!field || hidden.isHidden(path) || !SORTABLE_KINDS.has(field.kind)) {
      errors[`sort.${path}`] = "is not a sortable field";
    } else if (dir === undefined) {
      errors[`sort.${path}`] = "direction must be 1, -1, asc or desc";
    } else {
      spec[path === "id" ? "_id" : path] = dir;
    }
  }
  if (Object.keys(errors).length > 0) {
    throw validationFailed("Invalid sort. Sort on visible scalar fields only.", errors);
  }
  return spec;
}
