/**
 * Duplicate-key errors become a 409 naming the model's unique fields. Some servers
 * (FerretDB) omit `keyPattern`, so the fields come from the schema's own unique indexes;
 * fields hidden from the caller's surface are never named.
 */
import { TerrenoError } from "./errors.js";
import type { Resource } from "./resource.js";
import type { SurfaceView } from "./view.js";

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
export function isDuplicateKey(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === 11000 || (typeof message === "string" && /UNIQUE constraint failed/.test(message))
  );
}

/** The 409 for a duplicate key on `resource`, in the words the caller's view allows. */
export function conflictError(resource: Resource, view: SurfaceView, error: unknown): TerrenoError {
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

export async function withConflictDetail<T>(
  resource: Resource,
  view: SurfaceView,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    throw conflictError(resource, view, error);
  }
}
