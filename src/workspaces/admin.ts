/**
 * Managing workspaces, transport-free: what the routes of routes.ts run. Each step takes the
 * call's RequestContext (caller, scopes, services), so writes are reported to the app's audit
 * observer like every other write (`observeWrite`, with the models `Workspace`,
 * `WorkspaceMembership` and `WorkspaceInvitation`).
 *
 * The rules:
 * - a workspace the caller is not a member of is 404, exactly as one that does not exist;
 * - members read the workspace and its members; owners rename it, change roles, remove members
 *   and invite; anyone may remove themselves;
 * - the last owner can be neither demoted nor removed (409), under races too (ownerLock.ts);
 * - a credential bound to a workspace (`user.boundWorkspaceId`) manages that one only: others
 *   are 404 to it, and it can neither create a workspace nor accept an invitation (403);
 * - writes need a write scope (a read-only token gets 403).
 *
 * A removed member's access ends on their next request: every call looks the membership up
 * (src/core/workspace.ts), so their session, their bound tokens and bound grants find none. Their
 * personal access tokens bound to the workspace are deleted too, so rejoining revives none.
 */
import mongoose, { type Connection } from "mongoose";
import { accessTokenModel } from "../auth/personalTokens.js";
import {
  type FieldErrors,
  forbidden,
  notFound,
  TerrenoError,
  unauthenticated,
  validationFailed,
} from "../core/errors.js";
import { observeWrite, type WriteTarget } from "../core/observe.js";
import { assertScopeAllows } from "../core/scopes.js";
import type { RequestContext, User } from "../core/types.js";
import { WORKSPACE_HEADER } from "../core/workspace.js";
import type { WorkspaceMembership } from "../core/workspaceTypes.js";
import type { Workspaces } from "./directory.js";
import {
  claimInvitation,
  createInvitation,
  findOpenInvitation,
  markAccepted,
  type NewInvitation,
  releaseInvitation,
} from "./invitations.js";
import { withOwnerLock } from "./ownerLock.js";

/** The workspaces, where the framework's own models hold them, and their connection. */
export interface WorkspaceAdmin {
  workspaces: Workspaces;
  connection: Connection;
  invitations: InvitationLimits;
}

export interface InvitationLimits {
  /** Lifetime when the request names none. Default 7 days. */
  defaultExpiresInDays: number;
  /** The longest lifetime an owner may ask for. Default 30 days. */
  maxExpiresInDays: number;
}

export const DEFAULT_INVITATION_LIMITS: InvitationLimits = {
  defaultExpiresInDays: 7,
  maxExpiresInDays: 30,
};

/** A workspace as the routes show it, with the caller's role. */
export interface WorkspaceView {
  id: string;
  name: string;
  role: string;
}

export interface MemberView {
  userId: string;
  role: string;
  createdAt: Date | null;
}

/** The audit targets: a body is reported by its top-level keys (never values). */
const target = (model: string): WriteTarget => ({
  model,
  fields: (body) =>
    typeof body === "object" && body !== null && !Array.isArray(body)
      ? Object.keys(body).slice(0, 50)
      : [],
});
const WORKSPACE_TARGET = target("Workspace");
const MEMBERSHIP_TARGET = target("WorkspaceMembership");
const INVITATION_TARGET = target("WorkspaceInvitation");

const NAME_RULE = "must be a string of 1 to 200 characters";

function signedIn(ctx: RequestContext): User {
  if (!ctx.user) throw unauthenticated();
  return ctx.user;
}

function objectBody(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw validationFailed("The body must be a JSON object.", { "(root)": "must be an object" });
  }
  const errors: FieldErrors = {};
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) errors[key] = "is not an allowed field";
  }
  if (Object.keys(errors).length > 0) throw validationFailed("Invalid request body.", errors);
  return body as Record<string, unknown>;
}

function nameOf(value: unknown): string {
  const name = typeof value === "string" ? value.trim() : "";
  if (name.length < 1 || name.length > 200) {
    throw validationFailed("Invalid workspace name.", { name: NAME_RULE });
  }
  return name;
}

function roleOf(admin: WorkspaceAdmin, value: unknown): string {
  const { roles } = admin.workspaces;
  if (typeof value !== "string" || !roles.includes(value)) {
    throw validationFailed("Invalid role.", { role: `must be one of: ${roles.join(", ")}` });
  }
  return value;
}

const workspaceNotFound = () => notFound("The workspace was not found.");

/**
 * The caller's membership in `workspaceId`, or 404: for a workspace that does not exist, one the
 * caller is not a member of, and, for a credential bound to another workspace, any other. The
 * routes name the workspace of `/workspaces/:id` as the call's own (`X-Workspace-Id`), so it is
 * settled here through the call's workspace: audit events then carry its id.
 */
async function membershipIn(
  admin: WorkspaceAdmin,
  ctx: RequestContext,
  user: User,
  workspaceId: string,
): Promise<WorkspaceMembership> {
  if (!mongoose.isValidObjectId(workspaceId)) throw workspaceNotFound();
  if (user.boundWorkspaceId && user.boundWorkspaceId !== workspaceId) throw workspaceNotFound();
  if (ctx.workspace && ctx.headers[WORKSPACE_HEADER] === workspaceId) {
    const current = await ctx.workspace.peek();
    if (current?.id !== workspaceId) throw workspaceNotFound();
    return { workspaceId, name: current.name, role: current.role };
  }
  const membership = await admin.workspaces.membershipOf(user.id, workspaceId);
  if (!membership) throw workspaceNotFound();
  return membership;
}

function isOwner(admin: WorkspaceAdmin, membership: WorkspaceMembership): boolean {
  return membership.role === ownerRole(admin);
}

/** The highest role: the one that manages the workspace. */
function ownerRole(admin: WorkspaceAdmin): string {
  return admin.workspaces.roles[0] as string;
}

/** A member (else 404) whose scopes allow `method` (else 403) and who is an owner (else 403). */
async function ownerIn(
  admin: WorkspaceAdmin,
  ctx: RequestContext,
  user: User,
  workspaceId: string,
  method: "create" | "update",
) {
  const membership = await membershipIn(admin, ctx, user, workspaceId);
  assertScopeAllows(ctx, method);
  if (!isOwner(admin, membership)) {
    throw forbidden(`Only a workspace's ${ownerRole(admin)}s may do this.`);
  }
  return membership;
}

function unbound(user: User, what: string): void {
  if (user.boundWorkspaceId) {
    throw forbidden(`A credential bound to one workspace cannot ${what}.`);
  }
}

/** `GET /workspaces`: the caller's workspaces with their role (a bound credential: its one). */
export async function listMyWorkspaces(
  admin: WorkspaceAdmin,
  ctx: RequestContext,
): Promise<WorkspaceView[]> {
  const user = signedIn(ctx);
  const memberships = await admin.workspaces.membershipsOf(user.id);
  return memberships
    .filter((m) => !user.boundWorkspaceId || m.workspaceId === user.boundWorkspaceId)
    .map((m) => ({ id: m.workspaceId, name: m.name, role: m.role }));
}

/** `POST /workspaces {name}`: a new workspace, whose creator is its owner. */
export function createWorkspace(
  admin: WorkspaceAdmin,
  ctx: RequestContext,
  body: unknown,
): Promise<WorkspaceView> {
  return observeWrite(WORKSPACE_TARGET, ctx, "create", { body }, async (trace) => {
    const user = signedIn(ctx);
    assertScopeAllows(ctx, "create");
    unbound(user, "create a workspace");
    const name = nameOf(objectBody(body, ["name"]).name);
    const { Workspace, Membership } = admin.workspaces;
    const workspace = await Workspace.create({ name });
    const id = String(workspace._id);
    trace.documentId = id;
    try {
      await Membership.create({ workspaceId: id, userId: user.id, role: ownerRole(admin) });
    } catch (error) {
      // No workspace without an owner: undo the half write.
      await Workspace.deleteOne({ _id: id }).catch(() => {});
      throw error;
    }
    return { id, name, role: ownerRole(admin) };
  });
}

/** `PATCH /workspaces/:id {name}`: owners rename their workspace. */
export function updateWorkspace(
  admin: WorkspaceAdmin,
  ctx: RequestContext,
  workspaceId: string,
  body: unknown,
): Promise<WorkspaceView> {
  return observeWrite(WORKSPACE_TARGET, ctx, "update", { id: workspaceId, body }, async () => {
    const user = signedIn(ctx);
    const membership = await ownerIn(admin, ctx, user, workspaceId, "update");
    const name = nameOf(objectBody(body, ["name"]).name);
    await admin.workspaces.Workspace.updateOne({ _id: workspaceId }, { $set: { name } });
    return { id: workspaceId, name, role: membership.role };
  });
}

/** `GET /workspaces/:id/members`: every member, for any member. */
export async function listMembers(
  admin: WorkspaceAdmin,
  ctx: RequestContext,
  workspaceId: string,
): Promise<MemberView[]> {
  const user = signedIn(ctx);
  await membershipIn(admin, ctx, user, workspaceId);
  const rows = await admin.workspaces.Membership.find({ workspaceId })
    .select("userId role createdAt")
    .sort({ createdAt: 1, _id: 1 })
    .lean<Array<{ userId: unknown; role: string; createdAt?: Date }>>();
  return rows.map((row) => ({
    userId: String(row.userId),
    role: row.role,
    createdAt: row.createdAt ?? null,
  }));
}

/** The member `userId` of `workspaceId`, or 404. */
async function memberOrNotFound(admin: WorkspaceAdmin, workspaceId: string, userId: string) {
  const member = mongoose.isValidObjectId(userId)
    ? await admin.workspaces.membershipOf(userId, workspaceId)
    : null;
  if (!member) throw notFound("No member of this workspace has this user id.");
  return member;
}

function lastOwner(admin: WorkspaceAdmin): TerrenoError {
  return new TerrenoError(
    "conflict",
    `A workspace needs at least one ${ownerRole(admin)}: make another member ${ownerRole(admin)} first.`,
  );
}

/**
 * Runs `change` on a membership that may be an owner's: with the owner lock held, and only when
 * another owner remains (else 409). Changes that cannot take an owner away run at once.
 */
async function guardOwners(
  admin: WorkspaceAdmin,
  workspaceId: string,
  userId: string,
  takesOwnerAway: (current: WorkspaceMembership) => boolean,
  change: () => Promise<void>,
): Promise<void> {
  const before = await memberOrNotFound(admin, workspaceId, userId);
  if (!takesOwnerAway(before)) return change();
  await withOwnerLock(admin.connection, workspaceId, async () => {
    // Read again under the lock: the membership may have changed while we waited.
    const current = await memberOrNotFound(admin, workspaceId, userId);
    if (takesOwnerAway(current)) {
      const owners = await admin.workspaces.Membership.countDocuments({
        workspaceId,
        role: ownerRole(admin),
      });
      if (owners <= 1) throw lastOwner(admin);
    }
    await change();
  });
}

/** `PATCH /workspaces/:id/members/:userId {role}`: owners change a member's role. */
export function updateMember(
  admin: WorkspaceAdmin,
  ctx: RequestContext,
  workspaceId: string,
  userId: string,
  body: unknown,
): Promise<MemberView> {
  return observeWrite(MEMBERSHIP_TARGET, ctx, "update", { body }, async (trace) => {
    const user = signedIn(ctx);
    await ownerIn(admin, ctx, user, workspaceId, "update");
    const role = roleOf(admin, objectBody(body, ["role"]).role);
    const owner = ownerRole(admin);
    const { Membership } = admin.workspaces;
    await guardOwners(
      admin,
      workspaceId,
      userId,
      (current) => current.role === owner && role !== owner,
      async () => {
        await Membership.updateOne({ workspaceId, userId }, { $set: { role } });
      },
    );
    const row = await Membership.findOne({ workspaceId, userId })
      .select("_id createdAt")
      .lean<{ _id: unknown; createdAt?: Date }>();
    if (row) trace.documentId = String(row._id);
    return { userId, role, createdAt: row?.createdAt ?? null };
  });
}

/** `DELETE /workspaces/:id/members/:userId`: owners remove a member; anyone may leave. */
export function removeMember(
  admin: WorkspaceAdmin,
  ctx: RequestContext,
  workspaceId: string,
  userId: string,
): Promise<void> {
  return observeWrite(MEMBERSHIP_TARGET, ctx, "delete", {}, async (trace) => {
    const user = signedIn(ctx);
    const own = await membershipIn(admin, ctx, user, workspaceId);
    assertScopeAllows(ctx, "delete");
    if (userId !== user.id && !isOwner(admin, own)) {
      throw forbidden("Only owners may remove another member.");
    }
    const owner = ownerRole(admin);
    const { Membership } = admin.workspaces;
    await guardOwners(
      admin,
      workspaceId,
      userId,
      (current) => current.role === owner,
      async () => {
        const row = await Membership.findOneAndDelete({ workspaceId, userId }).lean<{
          _id: unknown;
        }>();
        if (row) trace.documentId = String(row._id);
      },
    );
    // Their tokens bound to it are refused from now on anyway (no membership); deleted, a later
    // invitation does not bring them back.
    await accessTokenModel(admin.connection).deleteMany({ userId, workspaceId });
  });
}

/** `POST /workspaces/:id/invitations {role, expiresInDays?}`: owners invite, by token. */
export function inviteToWorkspace(
  admin: WorkspaceAdmin,
  ctx: RequestContext,
  workspaceId: string,
  body: unknown,
): Promise<NewInvitation> {
  return observeWrite(INVITATION_TARGET, ctx, "create", { body }, async (trace) => {
    const user = signedIn(ctx);
    await ownerIn(admin, ctx, user, workspaceId, "create");
    const input = objectBody(body, ["role", "expiresInDays"]);
    const role = roleOf(admin, input.role);
    const { maxExpiresInDays, defaultExpiresInDays } = admin.invitations;
    const days = input.expiresInDays ?? defaultExpiresInDays;
    if (
      typeof days !== "number" ||
      !Number.isInteger(days) ||
      days < 1 ||
      days > maxExpiresInDays
    ) {
      throw validationFailed("Invalid invitation.", {
        expiresInDays: `must be a whole number of days from 1 to ${maxExpiresInDays}`,
      });
    }
    const invitation = await createInvitation(admin.connection, {
      workspaceId,
      role,
      createdBy: user.id,
      expiresAt: new Date(Date.now() + days * 24 * 60 * 60 * 1000),
    });
    trace.documentId = invitation.id;
    return invitation;
  });
}

const invitationNotFound = () =>
  notFound("This invitation does not exist, has expired, or was already used.");

/**
 * `POST /invitations/:token/accept`: the signed-in caller becomes a member with the
 * invitation's role. Exactly one accept uses an invitation, whatever the race (invitations.ts).
 */
export function acceptInvitation(
  admin: WorkspaceAdmin,
  ctx: RequestContext,
  token: string,
): Promise<WorkspaceView> {
  return observeWrite(INVITATION_TARGET, ctx, "accept", {}, async (trace) => {
    const user = signedIn(ctx);
    assertScopeAllows(ctx, "create");
    unbound(user, "accept an invitation");
    const invitation = await findOpenInvitation(admin.connection, token);
    if (!invitation) throw invitationNotFound();
    trace.documentId = String(invitation._id);
    const workspaceId = String(invitation.workspaceId);
    if (await admin.workspaces.membershipOf(user.id, workspaceId)) {
      throw new TerrenoError("conflict", "You are already a member of this workspace.");
    }
    if (!(await claimInvitation(admin.connection, invitation))) throw invitationNotFound();
    const { Membership, Workspace } = admin.workspaces;
    try {
      await Membership.init();
      await Membership.create({ workspaceId, userId: user.id, role: invitation.role });
    } catch (error) {
      // Joined meanwhile through another invitation: this one stays unused.
      await releaseInvitation(admin.connection, invitation).catch(() => {});
      if ((error as { code?: unknown }).code === 11000) {
        throw new TerrenoError("conflict", "You are already a member of this workspace.");
      }
      throw error;
    }
    await markAccepted(admin.connection, invitation, user.id);
    const workspace = await Workspace.findById(workspaceId)
      .select("name")
      .lean<{ name?: unknown }>();
    return { id: workspaceId, name: String(workspace?.name ?? ""), role: invitation.role };
  });
}
