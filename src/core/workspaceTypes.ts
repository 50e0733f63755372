/** The workspace shapes RequestContext and AppServices name (src/core/workspace.ts judges them). */

/** One of the caller's memberships, with its workspace's name. */
export interface WorkspaceMembership {
  workspaceId: string;
  name: string;
  role: string;
}

/** The workspace a call acts in, and the caller's role there. */
export interface CurrentWorkspace {
  id: string;
  name: string;
  role: string;
}

/**
 * Where the core reads memberships from (`AppServices.workspaces`). src/workspaces builds the
 * default one; an app whose workspaces are its own model passes its own `membershipsOf`.
 */
export interface WorkspaceDirectory {
  /** The roles, highest first (`["owner", "member", "viewer"]` by default). */
  readonly roles: readonly string[];
  /** Every membership of `userId`, each with its workspace's name. */
  membershipsOf(userId: string): Promise<WorkspaceMembership[]>;
}

/** A call's view of its workspace (`RequestContext.workspace`), resolved on first use. */
export interface WorkspaceAccess {
  /** The current workspace; throws 401, 403 (mismatch), 404 (not a member) or 400 (choose one). */
  current(): Promise<CurrentWorkspace>;
  /** The current workspace, or null where `current()` would throw. */
  peek(): Promise<CurrentWorkspace | null>;
  /**
   * The current workspace when this call has already resolved it (every call of a scoped
   * model has, before its verdict), else undefined; never looks anything up (for the audit).
   */
  settled(): CurrentWorkspace | undefined;
  /** Every membership of the caller (none for an anonymous caller). */
  memberships(): Promise<WorkspaceMembership[]>;
  /**
   * Whether the caller holds `min` or a higher role in the current workspace. Where none is
   * chosen yet (several memberships), whether they hold it in any: a tool list then shows what
   * they could use once they choose; the call itself still fails until they do.
   */
  hasRole(min: string): Promise<boolean>;
}
