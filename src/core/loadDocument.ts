/**
 * Loads one document by id for read/update/delete/actions: malformed ids, soft-deleted
 * documents and documents the caller may not read are all the same 404, then the method's own
 * object-level permission decides (403). Permissions judge the stored document (refs as ids),
 * whichever method asked; `populate` is applied only after they pass, for the response.
 */

import mongoose from "mongoose";
import { isObjectIdString } from "../schema/fieldSchema.js";
import { notFound } from "./errors.js";
import { checkObjectPermissions } from "./permissions.js";
import { type PopulateOption, scopePopulate } from "./populate.js";
import type { Resource } from "./resource.js";
import type { CrudMethod, Permissions, RequestContext, StoredDocument } from "./types.js";
import { workspaceFilter } from "./workspaceScope.js";

export function assertObjectId(id: unknown): string {
  if (!isObjectIdString(id) || !mongoose.isObjectIdOrHexString(id)) {
    throw notFound("No document has that id. Ids are 24-character hex strings.");
  }
  return id;
}

export async function loadDocument(
  resource: Resource,
  ctx: RequestContext,
  method: CrudMethod,
  id: unknown,
  populate: PopulateOption[] = [],
  /** The checks to apply; an action passes the model's `read` and its own under its name. */
  permissions: Permissions = resource.options.permissions,
): Promise<StoredDocument> {
  const validId = assertObjectId(id);
  const missing = () => notFound(`No ${resource.model.modelName} has the id ${validId}.`);
  // Another workspace's record is missing exactly like one that does not exist.
  const scope = await workspaceFilter(resource, ctx);
  const filter: Record<string, unknown> = { ...scope, _id: validId };
  if (resource.description.softDelete) {
    filter.deleted = { $ne: true };
  }
  const doc = await resource.model.findOne(filter).exec();
  if (!doc) throw missing();
  await checkObjectPermissions(permissions, method, ctx, doc, missing);
  if (populate.length > 0) await doc.populate(await scopePopulate(populate, resource.model, ctx));
  return doc;
}
