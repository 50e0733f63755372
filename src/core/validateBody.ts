/**
 * Validates a create/update body against the view's write schema (the same schema the tools
 * advertise), after the structural key checks. System, hidden and read-only fields are
 * absent from that schema, so naming one is refused rather than silently dropped. This is
 * the only place a body is validated, whichever surface it came through. An update body is a
 * merge patch (mergePatch.ts): a null that would clear a field that must stay is named
 * "is required". The body comes back as the core writes it, subdocument `id`s as `_id`.
 */
import type { ModelDescription } from "../schema/types.js";
import { INVALID_INPUT } from "../schema/validator.js";
import { TerrenoError, validationFailed } from "./errors.js";
import { assertSafeDocumentKeys } from "./inputSafety.js";
import { requiredNulls } from "./mergePatch.js";
import { splitReadOnly } from "./readBack.js";
import { toStoredIds } from "./subdocumentIds.js";
import type { PlainObject } from "./types.js";
import type { SurfaceView } from "./viewTypes.js";

/** What an adapter passes when the transport could not read a body (e.g. a non-JSON content type). */
export const UNREADABLE_BODY: unique symbol = Symbol("terreno-mcp.unreadableBody");

/** The 415 for a body the transport could not read. */
export function unreadableBody(): TerrenoError {
  return new TerrenoError(
    "unsupported_media_type",
    "Send the body as JSON (Content-Type: application/json).",
  );
}

/**
 * An update body, checked: the patch to apply (ids as stored), and the read-only values it
 * carried back as a read shows them (readBack.ts), for the operation to compare with the
 * document it loads.
 */
export function validateUpdateBody(
  view: SurfaceView,
  body: unknown,
  description: ModelDescription,
): { patch: PlainObject; readOnly: Map<string, unknown> } {
  checkBody(view, "update", body);
  const { patch, readOnly } = splitReadOnly(view.updateSchema, body as PlainObject);
  return { patch: toStoredIds(description.fields, patch), readOnly };
}

/** A create body, checked, with ids as stored. */
export function validateCreateBody(
  view: SurfaceView,
  body: unknown,
  description: ModelDescription,
): PlainObject {
  checkBody(view, "create", body);
  return toStoredIds(description.fields, body as PlainObject);
}

function checkBody(view: SurfaceView, mode: "create" | "update", body: unknown): void {
  if (body === UNREADABLE_BODY) throw unreadableBody();
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw validationFailed("The body must be a JSON object.", { "(root)": "must be an object" });
  }
  assertSafeDocumentKeys(body);
  const result = mode === "create" ? view.validateCreate(body) : view.validateUpdate(body);
  const cleared = mode === "update" ? requiredNulls(view.updateSchema, body as PlainObject) : {};
  if (!result.ok || Object.keys(cleared).length > 0) {
    // The validator alone would say `title: must be a string` for `{"title": null}`.
    const fields = { ...(result.ok ? {} : result.fields), ...cleared };
    throw validationFailed(INVALID_INPUT, fields);
  }
}
