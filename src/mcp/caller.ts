/** Who is calling /mcp, resolved once per request (resolveMcpCaller.ts) and read by every handler. */
import type { TerrenoError } from "../core/errors.js";
import type { User } from "../core/types.js";
import type { WorkspaceAccess } from "../core/workspaceTypes.js";

export interface McpCaller {
  readonly user?: User;
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The client address, for the rate limits. */
  readonly ip?: string;
  /** Set when the caller could not be resolved (the database is down): every call fails with it. */
  readonly failure?: TerrenoError;
  /** The caller's workspace, when the app has workspaces: which tools `WorkspaceRole` shows. */
  readonly workspace?: WorkspaceAccess;
}

/** Whom a 2025-era session and its answers belong to (legacyAsks.ts): the user, else none. */
export function principalOf(caller: McpCaller | undefined): string {
  if (caller?.failure) return "unresolved";
  return caller?.user?.id ?? "anonymous";
}
