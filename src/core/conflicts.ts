/**
 * Duplicate-key errors become a 409 naming the model's unique fields, a compound index's as a
 * set. Some servers (FerretDB) omit `keyPattern`, so the fields come from the schema's own
 * unique indexes; fields hidden from the caller's surface are never named.
 */
import { withArticle } from "../schema/article.js";
import { TerrenoError, validationFailed } from "./errors.js";
import { isCastError, isValidationError } from "./mongooseErrors.js";
import { normalizeError } from "./normalizeError.js";
import type { Resource } from "./resource.js";
import type { SurfaceView } from "./viewTypes.js";

/**
 * MongoDB reports a duplicate key as code 11000; FerretDB's SQLite backend reports one on an
 * update as its own "UNIQUE constraint failed" error, so both are recognised here.
 */
function isDuplicateKey(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === 11000 || (typeof message === "string" && /UNIQUE constraint failed/.test(message))
  );
}

/** `a`, `a and b`, `a, b and c`. */
function andList(words: readonly string[]): string {
  return words.length <= 1
    ? words.join("")
    : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

/**
 * The 409 for a duplicate key on `resource`, in the words the caller's view allows. A compound
 * index is named as a pair ("the same storeId and sku"): either field alone may repeat. MongoDB
 * reports the index that refused (`keyPattern`); without it every unique index is named.
 */
function conflictError(resource: Resource, view: SurfaceView, error: unknown): TerrenoError {
  const reported = Object.keys((error as { keyPattern?: object }).keyPattern ?? {});
  const indexes = reported.length > 0 ? [reported] : resource.description.uniqueIndexes;
  const groups = indexes
    .map((fields) => fields.filter((f) => !view.hidden.isHidden(f)))
    .filter((fields) => fields.length > 0);
  const fieldErrors: Record<string, string> = {};
  for (const group of groups) {
    for (const field of group) {
      const others = group.filter((other) => other !== field);
      fieldErrors[field] ??=
        others.length > 0 ? `must be unique together with ${andList(others)}` : "must be unique";
    }
  }
  const named = withArticle(resource.model.modelName);
  const subject = `${named.charAt(0).toUpperCase()}${named.slice(1)}`;
  const same = groups.map((group) => `the same ${andList(group)}`);
  return new TerrenoError(
    "conflict",
    same.length === 0
      ? `${subject} with the same unique value already exists.`
      : same.length === 1
        ? `${subject} with ${same[0]} already exists.`
        : `${subject} with ${same.join(", or ")}, already exists.`,
    fieldErrors,
  );
}

/**
 * A database-level refusal in the caller's words: a duplicate key names only visible unique
 * fields, and a Mongoose validation failure never names a field the caller's view hides
 * (a required hidden field would otherwise be revealed by its "is required").
 */
function writeError(resource: Resource, view: SurfaceView, error: unknown): unknown {
  if (isDuplicateKey(error)) return conflictError(resource, view, error);
  if (!isValidationError(error) && !isCastError(error)) return error;
  const normalized = normalizeError(error);
  const fields = normalized.fields ?? {};
  const visible = Object.fromEntries(
    Object.entries(fields).filter(
      ([path]) => !view.hidden.isHidden(path.replace(/\.\d+(?=\.|$)/g, "")),
    ),
  );
  if (Object.keys(visible).length === Object.keys(fields).length) return normalized;
  return validationFailed("The document failed validation.", visible);
}

export async function withConflictDetail<T>(
  resource: Resource,
  view: SurfaceView,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw writeError(resource, view, error);
  }
}
