/**
 * The membership lookup: the caller's workspaces with their names and roles, read from the
 * workspace and membership models (two queries; FerretDB has no `$lookup`). It is the core's
 * `WorkspaceDirectory` (`AppServices.workspaces`), so every surface resolves the current
 * workspace from it (src/core/workspace.ts).
 */
import mongoose, { type Connection } from "mongoose";
import type { AnyModel } from "../core/types.js";
import { DEFAULT_WORKSPACE_ROLES } from "../core/workspace.js";
import type { WorkspaceDirectory, WorkspaceMembership } from "../core/workspaceTypes.js";
import { workspaceModels } from "./models.js";

export interface WorkspacesOptions {
  /** The roles, highest first. Default `["owner", "member", "viewer"]`. */
  roles?: readonly string[];
  /** The app's own workspace model (built with `workspacePlugin`). Default: the framework's. */
  workspaceModel?: AnyModel;
  /** The app's own membership model (built with `membershipPlugin`). Default: the framework's. */
  membershipModel?: AnyModel;
  /**
   * Replaces the lookup altogether, for an app whose organizations live elsewhere: every
   * membership of the user, each with its workspace's id, name and role.
   */
  membershipsOf?: (userId: string) => Promise<WorkspaceMembership[]>;
}

/** The app's workspaces: the models, the roles and the membership lookup. */
export interface Workspaces extends WorkspaceDirectory {
  readonly Workspace: AnyModel;
  readonly Membership: AnyModel;
  /** The membership of `userId` in `workspaceId`, or null (also for malformed ids). */
  membershipOf(userId: string, workspaceId: string): Promise<WorkspaceMembership | null>;
}

interface MembershipRow {
  workspaceId: unknown;
  role: string;
}

interface WorkspaceRow {
  _id: unknown;
  name?: unknown;
}

/** The app's workspaces on `connection` (the user model's), with `options`. */
export function createWorkspaces(
  connection: Connection,
  options: WorkspacesOptions = {},
): Workspaces {
  const roles = [...(options.roles ?? DEFAULT_WORKSPACE_ROLES)];
  if (roles.length === 0 || new Set(roles).size !== roles.length) {
    throw new Error("workspaces.roles must list at least one role, each once");
  }
  const defaults =
    options.workspaceModel && options.membershipModel
      ? undefined
      : workspaceModels(connection, { roles });
  const Workspace = options.workspaceModel ?? (defaults as { Workspace: AnyModel }).Workspace;
  const Membership = options.membershipModel ?? (defaults as { Membership: AnyModel }).Membership;

  async function lookup(userId: string, workspaceId?: string): Promise<WorkspaceMembership[]> {
    if (!mongoose.isValidObjectId(userId)) return [];
    if (workspaceId !== undefined && !mongoose.isValidObjectId(workspaceId)) return [];
    const filter: Record<string, unknown> = { userId };
    if (workspaceId !== undefined) filter.workspaceId = workspaceId;
    const rows = await Membership.find(filter).select("workspaceId role").lean<MembershipRow[]>();
    if (rows.length === 0) return [];
    const ids = rows.map((row) => row.workspaceId);
    const spaces = await Workspace.find({ _id: { $in: ids } })
      .select("name")
      .lean<WorkspaceRow[]>();
    const names = new Map(spaces.map((space) => [String(space._id), String(space.name ?? "")]));
    return rows
      .filter((row) => names.has(String(row.workspaceId)))
      .map((row) => ({
        workspaceId: String(row.workspaceId),
        name: names.get(String(row.workspaceId)) as string,
        role: row.role,
      }))
      .sort((a, b) => a.name.localeCompare(b.name) || a.workspaceId.localeCompare(b.workspaceId));
  }

  const membershipsOf = options.membershipsOf ?? ((userId: string) => lookup(userId));
  return {
    roles,
    Workspace,
    Membership,
    membershipsOf,
    async membershipOf(userId, workspaceId) {
      if (options.membershipsOf) {
        return (await membershipsOf(userId)).find((m) => m.workspaceId === workspaceId) ?? null;
      }
      return (await lookup(userId, workspaceId))[0] ?? null;
    },
  };
}
