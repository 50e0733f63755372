/** read: authorize → load (404 when missing or not readable) → populate → respond. */
import { authorize } from "../authorize.js";
import { loadDocument } from "../loadDocument.js";
import { resolvePopulate } from "../populate.js";
import type { Resource } from "../resource.js";
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
  const view = await authorize(resource, ctx, "read");
  const populate = resolvePopulate(view, input.populate, resource.model, ctx);
  const doc = await loadDocument(resource, ctx, "read", input.id, populate);
  return respond(resource, view, ctx, "read", doc);
}
