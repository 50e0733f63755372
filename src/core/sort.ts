/**
 * Parses a caller's sort ("-createdAt,title" or `{createdAt: -1}`) into a Mongo sort on
 * the view's sortable paths only. Hidden fields are refused like unknown ones (no oracle).
 */
import { type FieldErrors, validationFailed } from "./errors.js";
import type { SurfaceView } from "./viewTypes.js";

export type SortSpec = Record<string, 1 | -1>;
export const MAX_SORT_KEYS = 5;

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

/**
 * Typed callers (the tools) send exactly what their schema says: one string of sortable
 * names, each optionally prefixed with "-", comma-separated, with no spaces, "+" or empty
 * parts. The REST query string keeps its lenient spellings.
 */
function strictEntries(sort: unknown, view: SurfaceView): Array<[string, unknown]> {
  const parts = typeof sort === "string" ? sort.split(",") : [];
  if (parts.length === 0 || parts.some((part) => !view.sortable.includes(part.replace(/^-/, "")))) {
    throw validationFailed("Invalid sort.", {
      sort: `must be up to ${MAX_SORT_KEYS} comma-separated fields of ${view.sortable.join(", ")}, each optionally prefixed with "-"`,
    });
  }
  return parts.map((part) => (part.startsWith("-") ? [part.slice(1), -1] : [part, 1]));
}

function direction(value: unknown): 1 | -1 | undefined {
  if (value === 1 || value === "1" || value === "asc" || value === "ascending") return 1;
  if (value === -1 || value === "-1" || value === "desc" || value === "descending") return -1;
  return undefined;
}

/** Sorts only on the view's sortable paths; anything else (hidden, unknown, array) is one 400. */
export function parseSort(sort: unknown, view: SurfaceView): SortSpec | undefined {
  // The tools view carries a typed list input; REST's has none (see view.ts).
  const typed = view.listInput !== undefined;
  if (sort === undefined || (!typed && (sort === null || sort === ""))) return undefined;
  const entries = typed ? strictEntries(sort, view) : entriesOf(sort);
  const errors: FieldErrors = {};
  if (entries.length > MAX_SORT_KEYS) {
    throw validationFailed("Invalid sort.", { sort: `may name at most ${MAX_SORT_KEYS} fields` });
  }
  const spec: SortSpec = {};
  for (const [path, value] of entries) {
    const dir = direction(value);
    if (!view.sortable.includes(path)) {
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
