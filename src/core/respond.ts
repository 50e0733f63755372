/**
 * The tail of every pipeline: serialize documents, strip hidden fields for the surface, add
 * each record's `version` (versions.ts), then hand the result to the user's response handler (stripped again after it, so a
 * handler cannot put a hidden field back).
 */
import { presentDocument } from "./present.js";
import type { Resource } from "./resource.js";
import type { CrudMethod, RequestContext, StoredDocument } from "./types.js";
import { withVersion } from "./versions.js";
import type { SurfaceView } from "./viewTypes.js";

export async function respond(
  resource: Resource,
  view: SurfaceView,
  ctx: RequestContext,
  method: CrudMethod,
  docs: StoredDocument | StoredDocument[],
): Promise<unknown> {
  const { hidden } = view;
  const strip = (doc: StoredDocument) => withVersion(resource, doc, presentDocument(view, doc));
  const value = Array.isArray(docs) ? docs.map(strip) : strip(docs);
  const { options } = resource;
  if (view.surface === "tools" && options.mcp?.mcpResponseHandler) {
    return hidden.stripHidden(await options.mcp.mcpResponseHandler(value, method, ctx.user));
  }
  if (options.responseHandler) {
    return hidden.stripHidden(await options.responseHandler(value, method, ctx, options));
  }
  return value;
}
