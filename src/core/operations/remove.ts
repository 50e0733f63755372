/** delete: authorize → load (404 when not readable, 403 when not deletable) → preDelete → soft or hard delete → postDelete. */

import { authorize } from "../authorize.js";
import { withConflictDetail } from "../conflicts.js";
import { forbidden } from "../errors.js";
import { loadDocument } from "../loadDocument.js";
import { observeWrite } from "../observe.js";
import type { Resource } from "../resource.js";
import type { RequestContext } from "../types.js";
import type { SurfaceView } from "../viewTypes.js";

export interface DeleteInput {
  id: unknown;
}

export interface DeleteResult {
  id: string;
  deleted: true;
}

export function remove(
  resource: Resource,
  ctx: RequestContext,
  input: DeleteInput,
): Promise<DeleteResult> {
  return observeWrite(resource, ctx, "delete", { id: input.id }, async () =>
    removeDocument(resource, await authorize(resource, ctx, "delete"), ctx, input),
  );
}

/** The delete itself, for a caller already authorized on `view` (the tool-call runner). */
export function runRemove(
  resource: Resource,
  view: SurfaceView,
  ctx: RequestContext,
  input: DeleteInput,
): Promise<DeleteResult> {
  return observeWrite(resource, ctx, "delete", { id: input.id }, () =>
    removeDocument(resource, view, ctx, input),
  );
}

async function removeDocument(
  resource: Resource,
  view: SurfaceView,
  ctx: RequestContext,
  input: DeleteInput,
): Promise<DeleteResult> {
  const { options, description } = resource;
  const doc = await loadDocument(resource, ctx, "delete", input.id);
  if (options.preDelete && (await options.preDelete(doc, ctx)) === null) {
    throw forbidden("This document may not be deleted.");
  }
  if (description.softDelete) {
    doc.set("deleted", true);
    await withConflictDetail(resource, view, () => doc.save());
  } else {
    await doc.deleteOne();
  }
  await options.postDelete?.(doc, ctx);
  return { id: String(doc._id), deleted: true };
}
