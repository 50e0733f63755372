/**
 * Permission helpers and the one function that enforces them. Method-level checks run
 * without a document; object-level checks run again on the loaded document.
 */
import { forbidden, methodNotAllowed, unauthenticated } from "./errors.js";
import type { AnyDocument, CrudMethod, PermissionMethod, Permissions, User } from "./types.js";

export const IsAny: PermissionMethod = () => true;

export const IsAuthenticated: PermissionMethod = (_method, user) => Boolean(user);

export const IsAdmin: PermissionMethod = (_method, user) => Boolean(user?.admin);

function ownerIdOf(obj: AnyDocument): string | undefined {
  const owner = obj?.ownerId;
  if (owner == null) {
    return undefined;
  }
  // A populated owner is a document; an unpopulated one is an ObjectId.
  return String(owner._id ?? owner);
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
  Boolean(user) || method === "list" || method === "read";

export const IsOwnerOrReadOnly: PermissionMethod = (method, user, obj) =>
  method === "list" || method === "read" || IsOwner(method, user, obj);

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
  user: User | undefined,
  obj?: AnyDocument,
): Promise<boolean> {
  for (const check of checks) {
    if (!(await check(method, user, obj))) return false;
  }
  return true;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

/**
 * Whether `user` passes the method-level checks of `method` (called with no document); false
 * when the method is disabled. Synchronous while every check answers synchronously, so tool
 * lists (src/tools/visibleTools.ts) can be built without a promise per tool; a check that
 * returns a promise makes the answer a promise. Checks run in order and stop at the first no.
 */
export function permitsMethod(
  permissions: Permissions,
  method: CrudMethod,
  user: User | undefined,
): boolean | Promise<boolean> {
  const checks = permissions[method];
  if (!checks || checks.length === 0) return false;
  for (let i = 0; i < checks.length; i += 1) {
    const verdict = checks[i](method, user);
    if (isThenable(verdict)) {
      return Promise.resolve(verdict).then(
        (ok) => Boolean(ok) && passes(checks.slice(i + 1), method, user),
      );
    }
    if (!verdict) return false;
  }
  return true;
}

/** Method level, before any document is loaded: 401 for an anonymous caller who fails, 403 otherwise. */
export async function checkPermissions(
  permissions: Permissions,
  method: CrudMethod,
  user: User | undefined,
): Promise<void> {
  const checks = permissions[method];
  if (!checks || checks.length === 0) {
    throw methodNotAllowed(method);
  }
  if (!(await permitsMethod(permissions, method, user))) {
    throw user ? forbidden() : unauthenticated();
  }
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
  user: User | undefined,
  obj: AnyDocument,
  notFoundError: () => Error,
): Promise<void> {
  const readChecks = permissions.read ?? [];
  const own = permissions[method] ?? [];
  if (readChecks.length > 0 && !(await passes(readChecks, "read", user, obj))) {
    throw notFoundError();
  }
  if (method === "read") return;
  if (!(await passes(own, method, user, obj))) {
    if (readChecks.length === 0) throw notFoundError();
    throw user ? forbidden() : unauthenticated();
  }
}
