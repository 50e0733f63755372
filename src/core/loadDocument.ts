/**
 * Loads one document by id for read/update/delete: malformed ids and soft-deleted
 * documents are 404s, and the object-level permission check runs on what was loaded.
 */
import mongoose from "mongoose";
import { notFound } from "./errors.js";
import { checkPermissions } from "./permissions.js";
import type { PopulateOption } from "./populate.js";
import type { Resource } from "./resource.js";
import type { AnyDocument, CrudMethod, RequestContext } from "./types.js";

export function assertObjectId(id: unknown): string {
  if (
    typeof id !== "string" ||
    !mongoose.isObjectIdOrHexString(id) ||
    !/^[0-9a-fA-F]{24}$/.test(id)
  ) {
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
): Promise<AnyDocument> {
  const validId = assertObjectId(id);
  const filter: Record<string, unknown> = { _id: validId };
  if (resource.description.softDelete) {
    filter.deleted = { $ne: true };
  }
  let query = resource.model.findOne(filter);
  for (const option of populate) {
    query = query.populate(option);
  }
  const doc = await query.exec();
  if (!doc) {
    throw notFound(`No ${resource.model.modelName} has the id ${validId}.`);
  }
  await checkPermissions(resource.options.permissions, method, ctx.user, doc);
  return doc;
}
