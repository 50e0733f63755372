/** read: authorize → load (404 when missing or not readable) → populate → respond. */
import { authorize } from "../authorize.js";
import { loadDocument } from "../loadDocument.js";
import { resolvePopulate } from "../populate.js";
import type { Resource } from "../resource.js";
import { respond } from "../respond.js";
import type { RequestContext } from "../types.js";
import type { SurfaceView } from "../viewTypes.js";

export interface ReadInput {
  id: unknown;
  populate?: unknown;
}

export async function read(
  resource: Resource,
  ctx: RequestContext,
  input: ReadInput,
): Promise<unknown> {
  return runRead(resource, await authorize(resource, ctx, "read"), ctx, input);
}

/** The read itself, for a caller already authorized on `view` (the tool-call runner). */
export async function runRead(
  resource: Resource,
  view: SurfaceView,
  ctx: RequestContext,
  input: ReadInput,
): Promise<unknown> {
  const populate = resolvePopulate(view, input.populate, resource.model, ctx);
  const doc = await loadDocument(resource, ctx, "read", input.id, populate);
  return respond(resource, view, ctx, "read", doc);
}
