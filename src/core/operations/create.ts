/** create: permission → validate body → preCreate → insert → postCreate → populate → respond. */
import { withConflictDetail } from "../conflicts.js";
import { forbidden } from "../errors.js";
import { loadDocument } from "../loadDocument.js";
import { checkPermissions } from "../permissions.js";
import { resolvePopulate } from "../populate.js";
import { type Resource, surfaceOf } from "../resource.js";
import { respond } from "../respond.js";
import type { RequestContext } from "../types.js";
import { validateBody } from "../validateBody.js";

export interface CreateInput {
  body: unknown;
  populate?: unknown;
}

export async function create(
  resource: Resource,
  ctx: RequestContext,
  input: CreateInput,
): Promise<unknown> {
  const { options, model } = resource;
  await checkPermissions(options.permissions, "create", ctx.user);
  const { hidden } = resource.views[surfaceOf(ctx.transport)];
  const populate = resolvePopulate(options.populatePaths ?? [], input.populate, hidden, model);
  let body = validateBody(resource, ctx, "create", input.body);
  if (options.preCreate) {
    const changed = await options.preCreate(body, ctx);
    if (changed === null) throw forbidden("This document may not be created.");
    body = changed;
  }
  const doc = await withConflictDetail(resource, () => model.create(body));
  await options.postCreate?.(doc, ctx);
  const loaded =
    populate.length > 0
      ? await loadDocument(resource, ctx, "read", String(doc._id), populate)
      : doc;
  return respond(resource, ctx, "create", loaded);
}
