/**
 * What a caller's scopes allow: THE rule, in one place. The one verdict (src/core/verdict.ts)
 * applies it to every operation on every surface (REST, MCP, AI tools) and to the tools a
 * caller is shown.
 *
 * - No scopes (`undefined`): an ordinary session (JWT, Better Auth). Full access, subject to
 *   the model's permissions as always.
 * - A write scope (`write`, `mcp:write`): reads and writes. Write implies read.
 * - Only a read scope (`read`, `mcp:read`): reads only (`list`, `read`, tools annotated
 *   `readOnlyHint: true`).
 * - Scopes naming neither: nothing.
 *
 * Scopes come from the credential, never from the user document: a personal access token
 * (`tmcp_…`) or an OAuth access token sets `user.scopes` when its AuthProvider resolves it.
 */
import { forbidden, type TerrenoError } from "./errors.js";
import { isWrite } from "./isWrite.js";
import type { CrudMethod, RequestContext } from "./types.js";

/** The OAuth scope that lets a token read through the MCP tools. */
export const MCP_READ_SCOPE = "mcp:read";
/** The OAuth scope that lets a token write (and read) through the MCP tools. */
export const MCP_WRITE_SCOPE = "mcp:write";
/** Scopes that allow reading: a personal token's `read`, an OAuth token's `mcp:read`. */
export const READ_SCOPES: readonly string[] = ["read", MCP_READ_SCOPE];
/** Scopes that allow writing (and reading): `write`, `mcp:write`. */
export const WRITE_SCOPES: readonly string[] = ["write", MCP_WRITE_SCOPE];
/** The OAuth scopes the MCP endpoint advertises (`scopes_supported`). */
export const MCP_SCOPES: readonly string[] = [MCP_READ_SCOPE, MCP_WRITE_SCOPE];

export type ScopeAccess = "read" | "write";
/** What a set of scopes grants: `write` (everything), `read` (reads only) or `none`. */
type AccessLevel = ScopeAccess | "none";

/** The caller's scopes: `ctx.scopes` when set, else the scopes of the credential (`user.scopes`). */
export function callerScopes(
  ctx: Pick<RequestContext, "scopes" | "user">,
): readonly string[] | undefined {
  const scopes = ctx.scopes ?? ctx.user?.scopes;
  if (scopes === undefined || scopes === null) return undefined;
  // Anything but an array of strings grants nothing (fail closed).
  return Array.isArray(scopes) ? scopes.filter((scope) => typeof scope === "string") : [];
}

function accessLevel(scopes: readonly string[] | undefined): AccessLevel {
  if (scopes === undefined) return "write";
  if (scopes.some((scope) => WRITE_SCOPES.includes(scope))) return "write";
  if (scopes.some((scope) => READ_SCOPES.includes(scope))) return "read";
  return "none";
}

export function scopesAllow(scopes: readonly string[] | undefined, access: ScopeAccess): boolean {
  const level = accessLevel(scopes);
  return level === "write" || (level === "read" && access === "read");
}

/** An operation's access: `write` when it writes (`isWrite`, src/core/isWrite.ts), else `read`. */
function accessFor(method: CrudMethod | (string & {})): ScopeAccess {
  return isWrite(method) ? "write" : "read";
}

/** The 403 for a caller whose scopes do not allow `access`. */
export function scopeRefusal(scopes: readonly string[] | undefined): TerrenoError {
  return accessLevel(scopes) === "read"
    ? forbidden("This token's scope is read-only.")
    : forbidden("This token's scope does not allow this request.");
}

/** Throws the 403 unless the caller's scopes allow `method`. */
export function assertScopeAllows(
  ctx: Pick<RequestContext, "scopes" | "user">,
  method: CrudMethod | (string & {}),
): void {
  const scopes = callerScopes(ctx);
  if (!scopesAllow(scopes, accessFor(method))) throw scopeRefusal(scopes);
}

/** A signed-in session carries no scopes; tokens (personal, OAuth) always do. */
export function isSessionCaller(user: { scopes?: readonly string[] } | undefined): boolean {
  return user !== undefined && user.scopes === undefined;
}
