/**
 * Duplicate-key errors become a 409 naming the model's unique fields. Some servers
 * (FerretDB) omit `keyPattern`, so the fields come from the schema's own unique indexes;
 * hidden fields are never named.
 */
import { TerrenoError } from "./errors.js";
import type { Resource } from "./resource.js";

function uniqueFields(resource: Resource): string[] {
  const fields = new Set<string>();
  for (const [spec, options] of resource.model.schema.indexes()) {
    if ((options as { unique?: boolean }).unique)
      for (const key of Object.keys(spec)) fields.add(key);
  }
  resource.model.schema.eachPath((path, type) => {
    if ((type.options as { unique?: boolean }).unique) fields.add(path);
  });
  return [...fields].filter((f) => !resource.views.tools.hidden.isHidden(f));
}

export async function withConflictDetail<T>(
  resource: Resource,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if ((error as { code?: unknown }).code !== 11000) throw error;
    const reported = Object.keys((error as { keyPattern?: object }).keyPattern ?? {});
    const fields = reported.length > 0 ? reported : uniqueFields(resource);
    const visible = fields.filter((f) => !resource.views.tools.hidden.isHidden(f));
    throw new TerrenoError(
      "conflict",
      visible.length > 0
        ? `A ${resource.model.modelName} with the same ${visible.join(" or ")} already exists.`
        : `A ${resource.model.modelName} with the same unique value already exists.`,
      Object.fromEntries(visible.map((f) => [f, "must be unique"])),
    );
  }
}
