/** read: permission → load (404) → object permission → populate → respond. */
import { loadDocument } from "../loadDocument.js";
import { checkPermissions } from "../permissions.js";
import { resolvePopulate } from "../populate.js";
import { type Resource, surfaceOf } from "../resource.js";
import { respond } from "../respond.js";
import type { RequestContext } from "../types.js";

export interface ReadInput {
  id: unknown;
  populate?: unknown;
}

export async function read(
  resource: Resource,
  ctx: RequestContext,
  input: ReadInput,
): Promise<unknown> {
  const { options, model } = resource;
  await checkPermissions(options.permissions, "read", ctx.user);
  const { hidden } = resource.views[surfaceOf(ctx.transport)];
  const populate = resolvePopulate(options.populatePaths ?? [], input.populate, hidden, model);
  const doc = await loadDocument(resource, ctx, "read", input.id, populate);
  return respond(resource, ctx, "read", doc);
}
