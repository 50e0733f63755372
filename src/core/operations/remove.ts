/**
 * delete: authorize → load (404 when not readable, 403 when not deletable) → check the version
 * → preDelete → soft or hard delete, of that version only (versionedWrite.ts) → postDelete.
 */

import { authorize } from "../authorize.js";
import { withConflictDetail } from "../conflicts.js";
import { forbidden } from "../errors.js";
import { loadDocument } from "../loadDocument.js";
import { observeWrite, storedObject, type WriteTrace } from "../observe.js";
import type { Resource } from "../resource.js";
import type { RequestContext } from "../types.js";
import { conditionOn, isStaleWrite, STALE, writeAtVersion } from "../versionedWrite.js";
import { type Precondition, versionOf } from "../versions.js";
import type { SurfaceView } from "../viewTypes.js";

export interface DeleteInput {
  id: unknown;
  /** REST's `If-Match`, or the tool's `version` (versions.ts). */
  precondition?: Precondition;
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
  return observeWrite(resource, ctx, "delete", { id: input.id }, async (trace) =>
    removeDocument(resource, await authorize(resource, ctx, "delete"), ctx, input, trace),
  );
}

/** The delete itself, for a caller already authorized on `view` (the tool-call runner). */
export function runRemove(
  resource: Resource,
  view: SurfaceView,
  ctx: RequestContext,
  input: DeleteInput,
): Promise<DeleteResult> {
  return observeWrite(resource, ctx, "delete", { id: input.id }, (trace) =>
    removeDocument(resource, view, ctx, input, trace),
  );
}

async function removeDocument(
  resource: Resource,
  view: SurfaceView,
  ctx: RequestContext,
  input: DeleteInput,
  trace: WriteTrace,
): Promise<DeleteResult> {
  const { options, description } = resource;
  const load = () => loadDocument(resource, ctx, "delete", input.id);
  const preconditions = input.precondition ? [input.precondition] : [];
  // Each attempt deletes only the version it loaded (versionedWrite.ts).
  const written = await writeAtVersion(resource, view, ctx, preconditions, load, async (doc) => {
    if (options.preDelete && (await options.preDelete(doc, ctx)) === null) {
      throw forbidden("This document may not be deleted.");
    }
    // As stored, `select: false` fields included, so an undo can put the record back whole.
    const before = ctx.services.observer
      ? ((await resource.model.collection.findOne({ _id: doc._id })) ?? storedObject(doc))
      : storedObject(doc);
    if (description.softDelete) doc.set("deleted", true);
    // After the change: a save that changes something increments the version.
    const unconditioned = conditionOn(resource, doc);
    try {
      if (description.softDelete) {
        await withConflictDetail(resource, view, () => doc.save());
      } else if ((await doc.deleteOne()).deletedCount === 0) {
        return STALE;
      }
    } catch (error) {
      if (isStaleWrite(error)) return STALE;
      throw error;
    } finally {
      unconditioned();
    }
    return { doc, before };
  });
  trace.snapshot = description.softDelete
    ? {
        before: written.before,
        after: storedObject(written.doc),
        version: versionOf(resource, written.doc),
      }
    : { before: written.before };
  const { doc } = written;
  await options.postDelete?.(doc, ctx);
  return { id: String(doc._id), deleted: true };
}
