/**
 * Duplicate-key errors become a 409 naming the model's unique fields. Some servers
 * (FerretDB) omit `keyPattern`, so the fields come from the schema's own unique indexes;
 * fields hidden from the caller's surface are never named.
 */
import { TerrenoError, validationFailed } from "./errors.js";
import { isCastError, isValidationError } from "./mongooseErrors.js";
import { normalizeError } from "./normalizeError.js";
import type { Resource } from "./resource.js";
import type { SurfaceView } from "./viewTypes.js";

function uniqueFields(resource: Resource): string[] {
  const fields = new Set<string>();
  for (const [spec, options] of resource.model.schema.indexes()) {
    if ((options as { unique?: boolean }).unique)
      for (const key of Object.keys(spec)) fields.add(key);
  }
  resource.model.schema.eachPath((path, type) => {
    if ((type.options as { unique?: boolean }).unique) fields.add(path);
  });
  return [...fields];
}

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

/** The 409 for a duplicate key on `resource`, in the words the caller's view allows. */
function conflictError(resource: Resource, view: SurfaceView, error: unknown): TerrenoError {
  const reported = Object.keys((error as { keyPattern?: object }).keyPattern ?? {});
  const fields = reported.length > 0 ? reported : uniqueFields(resource);
  const visible = fields.filter((f) => !view.hidden.isHidden(f));
  return new TerrenoError(
    "conflict",
    visible.length > 0
      ? `A ${resource.model.modelName} with the same ${visible.join(" or ")} already exists.`
      : `A ${resource.model.modelName} with the same unique value already exists.`,
    Object.fromEntries(visible.map((f) => [f, "must be unique"])),
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
