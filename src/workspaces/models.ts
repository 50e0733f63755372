/**
 * The workspace and membership models, on the app's connection (the user model's). An app adds
 * its own fields the way it adds them to its users: it builds its own schema, applies
 * `workspacePlugin` / `membershipPlugin`, registers the model under the same name on the same
 * connection before the app starts (or passes it as `workspaces.workspaceModel` /
 * `membershipModel`); the framework then uses that model instead of creating its own.
 *
 * FerretDB has no `$lookup`: a caller's memberships and their workspaces' names are two queries
 * (directory.ts), not a join.
 */
import { type Connection, Schema } from "mongoose";
import type { AnyModel } from "../core/types.js";
import { DEFAULT_WORKSPACE_ROLES } from "../core/workspace.js";

const WORKSPACE_MODEL_NAME = "Workspace";
const MEMBERSHIP_MODEL_NAME = "WorkspaceMembership";
const WORKSPACE_COLLECTION = "workspaces";
const MEMBERSHIP_COLLECTION = "workspace_memberships";

/** Adds a workspace's own fields (`name`, required, at most 200 characters) to `schema`. */
export function workspacePlugin(schema: Schema): void {
  schema.add({ name: { type: String, required: true, trim: true, minlength: 1, maxlength: 200 } });
}

export interface MembershipPluginOptions {
  /** The roles a membership may hold, highest first. Default `owner`, `member`, `viewer`. */
  roles?: readonly string[];
}

/**
 * Adds a membership's fields to `schema`: `userId`, `workspaceId` (ObjectIds), `role` (one of the
 * roles), with one membership per user and workspace (a unique index, so two concurrent joins
 * cannot both succeed: unique inserts are atomic on FerretDB too).
 */
export function membershipPlugin(schema: Schema, options: MembershipPluginOptions = {}): void {
  const roles = [...(options.roles ?? DEFAULT_WORKSPACE_ROLES)];
  schema.add({
    userId: { type: Schema.Types.ObjectId, ref: "User", required: true, index: true },
    workspaceId: {
      type: Schema.Types.ObjectId,
      ref: WORKSPACE_MODEL_NAME,
      required: true,
    },
    role: { type: String, required: true, enum: roles },
  });
  schema.index({ workspaceId: 1, userId: 1 }, { unique: true });
}

export interface WorkspaceModels {
  Workspace: AnyModel;
  Membership: AnyModel;
}

/**
 * The workspace and membership models on `connection`: the ones already registered there under
 * `Workspace` / `WorkspaceMembership` (an app's own, built with the plugins), else the default
 * ones, created now.
 */
export function workspaceModels(
  connection: Connection,
  options: MembershipPluginOptions = {},
): WorkspaceModels {
  const Workspace =
    connection.models[WORKSPACE_MODEL_NAME] ??
    connection.model(
      WORKSPACE_MODEL_NAME,
      new Schema({}, { collection: WORKSPACE_COLLECTION, timestamps: true }).plugin(
        workspacePlugin,
      ),
    );
  const membershipSchema = new Schema({}, { collection: MEMBERSHIP_COLLECTION, timestamps: true });
  membershipPlugin(membershipSchema, options);
  const Membership =
    connection.models[MEMBERSHIP_MODEL_NAME] ??
    connection.model(MEMBERSHIP_MODEL_NAME, membershipSchema);
  return { Workspace, Membership };
}
