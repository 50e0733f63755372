/**
 * create: authorize → validate body → preCreate → insert → postCreate → populate in place →
 * respond. Every refusal comes before the insert; nothing after it re-authorizes, so a saved
 * document is always answered as saved.
 */
import { authorize } from "../authorize.js";
import { withConflictDetail } from "../conflicts.js";
import { forbidden } from "../errors.js";
import { observeWrite, storedObject, type WriteTrace } from "../observe.js";
import { resolvePopulate, scopePopulate } from "../populate.js";
import type { Resource } from "../resource.js";
import { respond } from "../respond.js";
import type { RequestContext } from "../types.js";
import { validateCreateBody } from "../validateBody.js";
import { versionOf } from "../versions.js";
import type { SurfaceView } from "../viewTypes.js";
import { workspaceFilter } from "../workspaceScope.js";

export interface CreateInput {
  body: unknown;
  populate?: unknown;
}

export function create(
  resource: Resource,
  ctx: RequestContext,
  input: CreateInput,
): Promise<unknown> {
  return observeWrite(resource, ctx, "create", { body: input.body }, async (trace) =>
    createDocument(resource, await authorize(resource, ctx, "create"), ctx, input, trace),
  );
}

/** The create itself, for a caller already authorized on `view` (the tool-call runner). */
export function runCreate(
  resource: Resource,
  view: SurfaceView,
  ctx: RequestContext,
  input: CreateInput,
): Promise<unknown> {
  return observeWrite(resource, ctx, "create", { body: input.body }, (trace) =>
    createDocument(resource, view, ctx, input, trace),
  );
}

async function createDocument(
  resource: Resource,
  view: SurfaceView,
  ctx: RequestContext,
  input: CreateInput,
  trace: WriteTrace,
): Promise<unknown> {
  const { options, model } = resource;
  const scope = await workspaceFilter(resource, ctx);
  const populate = resolvePopulate(view, input.populate, model, ctx);
  // The workspace field is read-only (absent from the create schema): a body naming it is a 400.
  let body = { ...validateCreateBody(view, input.body, resource.description), ...scope };
  if (options.preCreate) {
    const changed = await options.preCreate(body, ctx);
    if (changed === null) throw forbidden("This document may not be created.");
    // Stamped again after the hook: the record is created in the call's workspace, whatever.
    body = { ...changed, ...scope };
  }
  const doc = await withConflictDetail(resource, view, () => model.create(body));
  trace.documentId = String(doc._id);
  trace.snapshot = { after: storedObject(doc), version: versionOf(resource, doc) };
  await options.postCreate?.(doc, ctx);
  if (populate.length > 0) await doc.populate(await scopePopulate(populate, model, ctx));
  return respond(resource, view, ctx, "create", doc);
}
