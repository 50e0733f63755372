/**
 * Undo of one change record (`POST /changes/:id/undo`), through the core as the caller, so
 * their permissions apply and the undo is itself a change:
 *
 * - an update → the inverse merge patch (each changed path set back; `null` where it had no
 *   value), conditional on the version the change left;
 * - a create → a delete of that version;
 * - a delete → the record put back as stored (same id, hidden fields included), only while no
 *   record has that id (a soft delete: only while it is still deleted at that version).
 *
 * A record no longer at the version the change left is a 409 `conflict` with both states (the
 * change and the record now), and nothing is written. Only the caller's own changes can be
 * undone: another's is a 404, as if it did not exist.
 */
import mongoose from "mongoose";
import { authorize } from "../core/authorize.js";
import { notFound, TerrenoError } from "../core/errors.js";
import { normalizeError } from "../core/normalizeError.js";
import { observeWrite, storedObject } from "../core/observe.js";
import { remove } from "../core/operations/remove.js";
import { update } from "../core/operations/update.js";
import type { Resource } from "../core/resource.js";
import { respond } from "../core/respond.js";
import type { PlainObject, RequestContext, StoredDocument } from "../core/types.js";
import { type Precondition, versionKey, versionOf } from "../core/versions.js";
import { workspaceIdFor } from "../core/workspaceScope.js";
import { type ChangeLog, resourceNamed, type StoredChange, served } from "./changeLog.js";

/** A change of the caller's own, or a 404. */
async function ownChange(log: ChangeLog, ctx: RequestContext, id: string): Promise<StoredChange> {
  const userId = ctx.user?.id;
  const found =
    userId && mongoose.isValidObjectId(id)
      ? await log.model().findOne({ _id: id, userId }).lean<StoredChange>().exec()
      : null;
  if (!found) throw notFound("No such change of yours.");
  return found;
}

/** The 409 of an undo whose record moved on: the change, and the record as it is now. */
function moved(change: StoredChange, error: unknown): TerrenoError {
  const current = error instanceof TerrenoError ? error.current : undefined;
  const refused = new TerrenoError(
    "conflict",
    `The ${change.model} changed after this change (version ${change.version ?? "none"}); ` +
      "nothing was written. `change` is what this change did, `current` the record now.",
    undefined,
    { current: current ?? { version: -1, data: null } },
  );
  (refused as TerrenoError & { change?: PlainObject }).change = served(change);
  return refused;
}

function staleCodes(error: unknown): boolean {
  const { code } = normalizeError(error);
  return code === "conflict" || code === "precondition_failed" || code === "not_found";
}

/** The inverse merge patch of an update: each visible changed path back to its value before. */
function inversePatch(change: StoredChange): PlainObject {
  const patch: PlainObject = {};
  for (const entry of change.changes) {
    // A hidden field is not writable through the surfaces: it stays as it is.
    if (entry.hidden) continue;
    patch[entry.path] =
      entry.before === undefined ? null : JSON.parse(JSON.stringify(entry.before));
  }
  return patch;
}

/** Puts a deleted record back, as a create of the caller's (permissions and change record). */
async function restore(
  resource: Resource,
  change: StoredChange,
  ctx: RequestContext,
): Promise<unknown> {
  const view = await authorize(resource, ctx, "create");
  const { model } = resource;
  const key = versionKey(resource);
  return observeWrite(resource, ctx, "create", { id: change.documentId }, async (trace) => {
    const stored = change.restore;
    if (!stored) throw notFound("This change kept no record to restore.");
    // The record goes back into the workspace it was deleted from: only for a caller working
    // there now (a member removed since, or working in another workspace, finds nothing).
    const field = resource.options.workspace;
    if (field && String(stored[field]) !== (await workspaceIdFor(resource, ctx))) {
      throw notFound();
    }
    const soft = resource.description.softDelete;
    let written = false;
    if (soft) {
      const filter: PlainObject = { _id: stored._id, deleted: true };
      if (key) filter[key] = change.version ?? null;
      const result = await model.collection.updateOne(filter, {
        $set: { deleted: false },
        ...(key ? { $inc: { [key]: 1 } } : {}),
      });
      written = result.modifiedCount === 1;
    } else {
      const previous = typeof stored[key ?? ""] === "number" ? (stored[key ?? ""] as number) : 0;
      const doc = key ? { ...stored, [key]: previous + 1 } : stored;
      try {
        await model.collection.insertOne(doc);
        written = true;
      } catch (error) {
        if ((error as { code?: unknown }).code !== 11000) throw error;
      }
    }
    const now = (await model.findById(stored._id).exec()) as StoredDocument | null;
    if (!written || !now) {
      const current = now
        ? {
            version: versionOf(resource, now) ?? 0,
            data: await respond(resource, view, ctx, "read", now),
          }
        : undefined;
      throw moved(
        change,
        new TerrenoError("conflict", "moved", undefined, current ? { current } : {}),
      );
    }
    trace.snapshot = { after: storedObject(now), version: versionOf(resource, now) };
    return respond(resource, view, ctx, "create", now);
  });
}

/** Undoes the caller's change `id`; returns what the undo's write returned. */
export async function undoChange(
  log: ChangeLog,
  ctx: RequestContext,
  id: string,
): Promise<unknown> {
  const change = await ownChange(log, ctx, id);
  const resource = resourceNamed(ctx, change.model);
  if (!resource) throw notFound(`No router serves ${change.model} any more.`);
  const precondition: Precondition[] =
    typeof change.version === "number" ? [{ versions: [change.version], from: "version" }] : [];
  try {
    if (change.action === "create") {
      return await remove(resource, ctx, { id: change.documentId, precondition: precondition[0] });
    }
    if (change.action === "update") {
      return await update(resource, ctx, {
        id: change.documentId,
        body: inversePatch(change),
        precondition: precondition[0],
      });
    }
  } catch (error) {
    throw staleCodes(error) ? moved(change, error) : error;
  }
  if (change.action === "delete") return restore(resource, change, ctx);
  throw new TerrenoError(
    "validation_failed",
    `A change by the action \`${change.action}\` cannot be undone; undo is for creates, updates and deletes.`,
  );
}
