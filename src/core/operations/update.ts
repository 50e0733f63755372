/**
 * update: authorize → load (404 when not readable, 403 when not changeable) → validate →
 * preUpdate → save → postUpdate → populate in place → respond. Nothing after the save
 * re-authorizes.
 */
import { authorize } from "../authorize.js";
import { withConflictDetail } from "../conflicts.js";
import { forbidden } from "../errors.js";
import { loadDocument } from "../loadDocument.js";
import { resolvePopulate } from "../populate.js";
import type { Resource } from "../resource.js";
import { respond } from "../respond.js";
import type { RequestContext } from "../types.js";
import { validateBody } from "../validateBody.js";

export interface UpdateInput {
  id: unknown;
  body: unknown;
  populate?: unknown;
}

export async function update(
  resource: Resource,
  ctx: RequestContext,
  input: UpdateInput,
): Promise<unknown> {
  const { options, model } = resource;
  const view = await authorize(resource, ctx, "update");
  const populate = resolvePopulate(view, input.populate, model);
  const doc = await loadDocument(resource, ctx, "update", input.id);
  let body = validateBody(view, "update", input.body);
  if (options.preUpdate) {
    const changed = await options.preUpdate(body, ctx);
    if (changed === null) throw forbidden("This document may not be updated.");
    body = changed;
  }
  const prevDoc = doc.toObject();
  doc.set(body);
  await withConflictDetail(resource, view, () => doc.save());
  await options.postUpdate?.(doc, body, ctx, prevDoc);
  if (populate.length > 0) await doc.populate(populate);
  return respond(resource, view, ctx, "update", doc);
}
