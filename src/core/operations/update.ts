/**
 * update: authorize → load (404 when not readable, 403 when not changeable) → check the
 * version → validate → preUpdate → merge the patch (RFC 7396, see mergePatch.ts) → save, on
 * that version only (versionedWrite.ts) → postUpdate → populate in place → respond. Nothing is
 * written before every check has passed (Mongoose validates on save, before it writes);
 * nothing after the save re-authorizes.
 */
import { authorize } from "../authorize.js";
import { withConflictDetail } from "../conflicts.js";
import { forbidden } from "../errors.js";
import { loadDocument } from "../loadDocument.js";
import { applyMergePatch } from "../mergePatch.js";
import { observeWrite, storedObject, type WriteTrace } from "../observe.js";
import { resolvePopulate, scopePopulate } from "../populate.js";
import { checkReadOnly } from "../readBack.js";
import type { Resource } from "../resource.js";
import { respond } from "../respond.js";
import type { RequestContext } from "../types.js";
import { validateUpdateBody } from "../validateBody.js";
import { conditionOn, isStaleWrite, STALE, writeAtVersion } from "../versionedWrite.js";
import { type Precondition, takeVersion, versionOf } from "../versions.js";
import type { SurfaceView } from "../viewTypes.js";

export interface UpdateInput {
  id: unknown;
  body: unknown;
  populate?: unknown;
  /** REST's `If-Match`; a `version` in the body is one too (versions.ts). */
  precondition?: Precondition;
}

export function update(
  resource: Resource,
  ctx: RequestContext,
  input: UpdateInput,
): Promise<unknown> {
  return observeWrite(resource, ctx, "update", { id: input.id, body: input.body }, async (trace) =>
    updateDocument(resource, await authorize(resource, ctx, "update"), ctx, input, trace),
  );
}

/** The update itself, for a caller already authorized on `view` (the tool-call runner). */
export function runUpdate(
  resource: Resource,
  view: SurfaceView,
  ctx: RequestContext,
  input: UpdateInput,
): Promise<unknown> {
  return observeWrite(resource, ctx, "update", { id: input.id, body: input.body }, (trace) =>
    updateDocument(resource, view, ctx, input, trace),
  );
}

async function updateDocument(
  resource: Resource,
  view: SurfaceView,
  ctx: RequestContext,
  input: UpdateInput,
  trace: WriteTrace,
): Promise<unknown> {
  const { options, model } = resource;
  const populate = resolvePopulate(view, input.populate, model, ctx);
  const taken = takeVersion(resource, input.body);
  const preconditions = [input.precondition, taken.precondition].filter((p) => p !== undefined);
  const load = () => loadDocument(resource, ctx, "update", input.id);
  // Each attempt starts from the record as stored (versionedWrite.ts): the hook and the
  // patch see the version the write is conditional on.
  const written = await writeAtVersion(resource, view, ctx, preconditions, load, async (doc) => {
    const checked = validateUpdateBody(view, taken.body, resource.description);
    let body = checkReadOnly(
      checked,
      view.updateSchema,
      resource.description.fields,
      doc,
      view.readOnlyPath,
    );
    if (options.preUpdate) {
      // preUpdate receives the patch and the stored document, postUpdate the patch and the
      // document as it was.
      const changed = await options.preUpdate(body, ctx, doc);
      if (changed === null) throw forbidden("This document may not be updated.");
      body = changed;
    }
    const prevDoc = doc.toObject();
    const before = storedObject(doc);
    applyMergePatch(doc, body, resource.description.fields);
    const unconditioned = conditionOn(resource, doc);
    try {
      await withConflictDetail(resource, view, () => doc.save());
    } catch (error) {
      if (isStaleWrite(error)) return STALE;
      throw error;
    } finally {
      unconditioned();
    }
    return { doc, body, prevDoc, before };
  });
  const { doc, body, prevDoc, before } = written;
  trace.snapshot = { before, after: storedObject(doc), version: versionOf(resource, doc) };
  await options.postUpdate?.(doc, body, ctx, prevDoc);
  if (populate.length > 0) await doc.populate(await scopePopulate(populate, model, ctx));
  return respond(resource, view, ctx, "update", doc);
}
