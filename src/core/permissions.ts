/**
 * Permission helpers, and the object-level check on a loaded document. Method-level checks
 * (no document yet) are part of the one verdict, src/core/verdict.ts.
 */
import { forbidden, unauthenticated } from "./errors.js";
import { isWrite } from "./isWrite.js";
import type { CrudMethod, PermissionCaller, PermissionMethod, Permissions, User } from "./types.js";

export const IsAny: PermissionMethod = () => true;

export const IsAuthenticated: PermissionMethod = (_method, user) => Boolean(user);

export const IsAdmin: PermissionMethod = (_method, user) => Boolean(user?.admin);

function ownerIdOf(obj: unknown): string | undefined {
  const owner = (obj as { ownerId?: unknown } | null | undefined)?.ownerId;
  if (owner == null) {
    return undefined;
  }
  // A populated owner is a document; an unpopulated one is an ObjectId.
  return String((owner as { _id?: unknown })._id ?? owner);
}

/** Admins pass; otherwise the document's `ownerId` must be the caller. */
export const IsOwner: PermissionMethod = (_method, user, obj) => {
  if (!user) {
    return false;
  }
  if (user.admin || obj === undefined) {
    return true;
  }
  return ownerIdOf(obj) === user.id;
};

export const IsAuthenticatedOrReadOnly: PermissionMethod = (method, user) =>
  Boolean(user) || !isWrite(method);

export const IsOwnerOrReadOnly: PermissionMethod = (method, user, obj) =>
  !isWrite(method) || IsOwner(method, user, obj);

/** Scopes a list to the caller's own documents (admins see everything). */
export function OwnerQueryFilter(user?: User): Record<string, unknown> | null {
  if (!user) {
    return null;
  }
  return user.admin ? {} : { ownerId: user.id };
}

export function isMethodEnabled(permissions: Permissions, method: CrudMethod): boolean {
  const checks = permissions[method];
  return Array.isArray(checks) && checks.length > 0;
}

async function passes(
  checks: readonly PermissionMethod[],
  method: CrudMethod,
  caller: PermissionCaller,
  obj?: unknown,
): Promise<boolean> {
  for (const check of checks) {
    if (!(await check(method, caller.user, obj, caller))) return false;
  }
  return true;
}

/**
 * Object level, on a loaded document. A caller who may not read it is told it does not
 * exist (`notFoundError`), so ids are no oracle for other users' documents; a caller who
 * may read it but not change it gets 403. Where reading is disabled altogether, the
 * method's own checks decide between the document existing for the caller or not.
 */
export async function checkObjectPermissions(
  permissions: Permissions,
  method: CrudMethod,
  caller: PermissionCaller,
  obj: unknown,
  notFoundError: () => Error,
): Promise<void> {
  const { user } = caller;
  const readChecks = permissions.read ?? [];
  const own = permissions[method] ?? [];
  if (readChecks.length > 0 && !(await passes(readChecks, "read", caller, obj))) {
    throw notFoundError();
  }
  if (method === "read") return;
  if (!(await passes(own, method, caller, obj))) {
    if (readChecks.length === 0) throw notFoundError();
    throw user ? forbidden() : unauthenticated();
  }
}
