/** update: permission → load → object permission → validate → preUpdate → save → postUpdate → respond. */
import { withConflictDetail } from "../conflicts.js";
import { forbidden } from "../errors.js";
import { loadDocument } from "../loadDocument.js";
import { checkPermissions } from "../permissions.js";
import { resolvePopulate } from "../populate.js";
import { type Resource, surfaceOf } from "../resource.js";
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
  await checkPermissions(options.permissions, "update", ctx.user);
  const { hidden } = resource.views[surfaceOf(ctx.transport)];
  const populate = resolvePopulate(options.populatePaths ?? [], input.populate, hidden, model);
  const doc = await loadDocument(resource, ctx, "update", input.id);
  let body = validateBody(resource, ctx, "update", input.body);
  if (options.preUpdate) {
    const changed = await options.preUpdate(body, ctx);
    if (changed === null) throw forbidden("This document may not be updated.");
    body = changed;
  }
  const prevDoc = doc.toObject();
  doc.set(body);
  await withConflictDetail(resource, () => doc.save());
  await options.postUpdate?.(doc, body, ctx, prevDoc);
  const loaded =
    populate.length > 0
      ? await loadDocument(resource, ctx, "read", String(doc._id), populate)
      : doc;
  return respond(resource, ctx, "update", loaded);
}
