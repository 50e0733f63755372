/**
 * update: authorize → load (404 when not readable, 403 when not changeable) → validate →
 * preUpdate → merge the patch (RFC 7396, see mergePatch.ts) → save → postUpdate → populate in
 * place → respond. Nothing is written before every check has passed (Mongoose validates on
 * save, before it writes); nothing after the save re-authorizes.
 */
import { authorize } from "../authorize.js";
import { withConflictDetail } from "../conflicts.js";
import { forbidden } from "../errors.js";
import { loadDocument } from "../loadDocument.js";
import { applyMergePatch } from "../mergePatch.js";
import { observeWrite } from "../observe.js";
import { resolvePopulate, scopePopulate } from "../populate.js";
import { assertReadOnlyUnchanged } from "../readBack.js";
import type { Resource } from "../resource.js";
import { respond } from "../respond.js";
import type { RequestContext } from "../types.js";
import { validateUpdateBody } from "../validateBody.js";
import type { SurfaceView } from "../viewTypes.js";

export interface UpdateInput {
  id: unknown;
  body: unknown;
  populate?: unknown;
}

export function update(
  resource: Resource,
  ctx: RequestContext,
  input: UpdateInput,
): Promise<unknown> {
  return observeWrite(resource, ctx, "update", { id: input.id, body: input.body }, async () =>
    updateDocument(resource, await authorize(resource, ctx, "update"), ctx, input),
  );
}

/** The update itself, for a caller already authorized on `view` (the tool-call runner). */
export function runUpdate(
  resource: Resource,
  view: SurfaceView,
  ctx: RequestContext,
  input: UpdateInput,
): Promise<unknown> {
  return observeWrite(resource, ctx, "update", { id: input.id, body: input.body }, () =>
    updateDocument(resource, view, ctx, input),
  );
}

async function updateDocument(
  resource: Resource,
  view: SurfaceView,
  ctx: RequestContext,
  input: UpdateInput,
): Promise<unknown> {
  const { options, model } = resource;
  const populate = resolvePopulate(view, input.populate, model, ctx);
  const doc = await loadDocument(resource, ctx, "update", input.id);
  // preUpdate receives the patch, postUpdate the patch and the document as it was.
  const checked = validateUpdateBody(view, input.body, resource.description);
  assertReadOnlyUnchanged(checked.readOnly, resource.description.fields, doc);
  let body = checked.patch;
  if (options.preUpdate) {
    const changed = await options.preUpdate(body, ctx);
    if (changed === null) throw forbidden("This document may not be updated.");
    body = changed;
  }
  const prevDoc = doc.toObject();
  applyMergePatch(doc, body, resource.description.fields);
  await withConflictDetail(resource, view, () => doc.save());
  await options.postUpdate?.(doc, body, ctx, prevDoc);
  if (populate.length > 0) await doc.populate(await scopePopulate(populate, model, ctx));
  return respond(resource, view, ctx, "update", doc);
}
