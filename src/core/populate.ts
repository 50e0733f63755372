/**
 * Resolves which declared `populatePaths` a call populates, and builds Mongoose populate
 * options whose field selects can never pull a field the referenced model's view hides.
 */
import type { Connection, Model } from "mongoose";
import { validationFailed } from "./errors.js";
import { modelView } from "./present.js";
import type { SurfaceView } from "./viewTypes.js";

export interface PopulateOption {
  path: string;
  select?: string;
}

function refModelName(model: Model<unknown>, path: string): string | undefined {
  const schemaType = model.schema.path(path) as unknown as
    | {
        options?: { ref?: unknown; type?: unknown };
        embeddedSchemaType?: { options?: { ref?: unknown } };
        caster?: { options?: { ref?: unknown } };
      }
    | undefined;
  const ref =
    schemaType?.options?.ref ??
    schemaType?.embeddedSchemaType?.options?.ref ??
    schemaType?.caster?.options?.ref;
  if (typeof ref === "string") return ref;
  if (typeof ref === "function" && "modelName" in ref) return String(ref.modelName);
  return undefined;
}

/** Whether the referenced model's own view hides `field` (its schema's `select: false`). */
function hiddenInRef(
  modelName: string | undefined,
  field: string,
  connection: Connection,
  surface: SurfaceView["surface"],
): boolean {
  if (!modelName) return false;
  const refModel = connection.models[modelName] ?? connection.base.models[modelName];
  return refModel ? modelView(refModel, surface).hidden.isHidden(field) : false;
}

/** `requested` undefined means every populatable path of the view; any other path is a 400. */
export function resolvePopulate(
  view: SurfaceView,
  requested: unknown,
  model: Model<unknown>,
): PopulateOption[] {
  const { hidden } = view;
  const visible = view.populatable;
  let chosen = visible;
  if (requested !== undefined) {
    const names = typeof requested === "string" ? requested.split(",").filter(Boolean) : requested;
    if (!Array.isArray(names) || names.some((n) => typeof n !== "string")) {
      throw validationFailed("Invalid populate.", { populate: "must be a list of paths" });
    }
    const unknown = names.filter((name) => !visible.some((p) => p.path === name));
    if (unknown.length > 0) {
      const allowed = visible.map((p) => p.path).join(", ") || "none";
      throw validationFailed(
        `Cannot populate ${unknown.join(", ")}. Populatable paths: ${allowed}.`,
        {
          populate: `${unknown.join(", ")} is not a populatable path`,
        },
      );
    }
    chosen = visible.filter((p) => names.includes(p.path));
  }
  return chosen.map((p) => {
    const refName = refModelName(model, p.path);
    const fields = (p.fields ?? []).filter(
      (f) =>
        !hidden.isHiddenName(f) &&
        !hiddenInRef(refName, f, model.db, view.surface) &&
        !f.startsWith("+") &&
        !f.startsWith("-"),
    );
    return fields.length > 0 || p.fields
      ? { path: p.path, select: ["_id", ...fields].join(" ") }
      : { path: p.path };
  });
}
