/** Permission sets the suites' models share; no models here, so any test may import it. */
import { IsAuthenticated, IsOwner, OwnerQueryFilter } from "../../src/core/permissions.js";
import type { Permissions, PlainObject, RequestContext } from "../../src/core/types.js";

/** Every method open to any signed-in caller. */
export const SIGNED_IN: Permissions = {
  list: [IsAuthenticated],
  read: [IsAuthenticated],
  create: [IsAuthenticated],
  update: [IsAuthenticated],
  delete: [IsAuthenticated],
};

/** Any signed-in caller lists and creates; only a document's owner reads, updates or deletes it. */
export const OWNER_ONLY: Permissions = {
  list: [IsAuthenticated],
  read: [IsOwner],
  create: [IsAuthenticated],
  update: [IsOwner],
  delete: [IsOwner],
};

/**
 * A model each caller owns the documents of: OWNER_ONLY, lists narrowed to the caller's own,
 * `ownerId` set to the creator and read-only after.
 */
export const OWNED = {
  permissions: OWNER_ONLY,
  queryFilter: OwnerQueryFilter,
  readOnlyFields: ["ownerId"],
  preCreate: (body: PlainObject, req: RequestContext) => ({ ...body, ownerId: req.user?.id }),
};
