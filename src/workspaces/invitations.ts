/**
 * Workspace invitations: an owner asks for one (`POST /workspaces/:id/invitations {role}`) and
 * gets a token (`tmwi_` + 43 base64url characters, 256 random bits) to pass on by any means; the
 * person who signs in and presents it (`POST /invitations/:token/accept`) becomes a member with
 * that role. Nothing is ever matched by email: the app has no verified addresses, so whoever
 * signed up with an invited address could otherwise take the seat.
 *
 * Only the token's SHA-256 is stored, in `terreno_workspace_invitations` on the app's connection.
 * An invitation is used once: accepting claims it by inserting its one claim `_id` in the claim
 * store (src/ops/claimCounter.ts), which holds under any race, on MongoDB and on FerretDB (whose
 * conditional updates do not), so of N concurrent accepts exactly one makes a member.
 * Expiry is checked on every accept (FerretDB has no TTL indexes).
 */
import { randomBytes } from "node:crypto";
import mongoose, { type Connection, Schema, type Types } from "mongoose";
import { hashToken } from "../auth/tokenCollection.js";
import { ClaimStore } from "../ops/claimCounter.js";

const INVITATION_MODEL_NAME = "TerrenoWorkspaceInvitation";
const INVITATION_COLLECTION = "terreno_workspace_invitations";
const INVITATION_TOKEN_PREFIX = "tmwi_";
const TOKEN_SHAPE = /^tmwi_[A-Za-z0-9_-]{43}$/;
/** The claim group an accepted invitation's one slot lives in. */
const CLAIM_GROUP = "workspace_invitation";
/** How long a used invitation's claim outlives the invitation (it can no longer be accepted then). */
const CLAIM_MARGIN_MS = 24 * 60 * 60 * 1000;

export interface InvitationRecord {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  role: string;
  tokenHash: string;
  createdBy: Types.ObjectId;
  expiresAt: Date;
  acceptedBy?: Types.ObjectId | null;
  acceptedAt?: Date | null;
  createdAt?: Date;
}

const invitationSchema = new Schema(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true, index: true },
    role: { type: String, required: true },
    tokenHash: { type: String, required: true, unique: true },
    createdBy: { type: Schema.Types.ObjectId, required: true },
    expiresAt: { type: Date, required: true },
    acceptedBy: { type: Schema.Types.ObjectId, default: null },
    acceptedAt: { type: Date, default: null },
  },
  {
    collection: INVITATION_COLLECTION,
    timestamps: { createdAt: true, updatedAt: false },
    versionKey: false,
  },
);

/** The invitation model on `connection` (made once per connection). */
function invitationModel(connection: Connection): mongoose.Model<InvitationRecord> {
  return (connection.models[INVITATION_MODEL_NAME] ??
    connection.model<InvitationRecord>(
      INVITATION_MODEL_NAME,
      invitationSchema,
    )) as mongoose.Model<InvitationRecord>;
}

export interface NewInvitation {
  id: string;
  workspaceId: string;
  role: string;
  expiresAt: Date;
  /** Shown this once; only its hash is stored. */
  token: string;
}

/** Stores a new invitation and returns its token. */
export async function createInvitation(
  connection: Connection,
  input: { workspaceId: string; role: string; createdBy: string; expiresAt: Date },
): Promise<NewInvitation> {
  const token = INVITATION_TOKEN_PREFIX + randomBytes(32).toString("base64url");
  const record = await invitationModel(connection).create({
    workspaceId: input.workspaceId,
    role: input.role,
    tokenHash: hashToken(token),
    createdBy: input.createdBy,
    expiresAt: input.expiresAt,
  });
  return {
    id: String(record._id),
    workspaceId: input.workspaceId,
    role: input.role,
    expiresAt: input.expiresAt,
    token,
  };
}

/** The unexpired, unused invitation `token` names, or null (a malformed token is null too). */
export async function findOpenInvitation(
  connection: Connection,
  token: string,
): Promise<InvitationRecord | null> {
  if (!TOKEN_SHAPE.test(token)) return null;
  const record = await invitationModel(connection)
    .findOne({ tokenHash: hashToken(token) })
    .lean<InvitationRecord>();
  if (!record || record.acceptedBy || record.expiresAt.getTime() <= Date.now()) return null;
  return record;
}

/**
 * Claims `invitation` for one accept: true for exactly one caller, whatever the race (the insert
 * of one claim `_id`); every later or concurrent claim gets false.
 */
export function claimInvitation(connection: Connection, invitation: InvitationRecord) {
  const until = new Date(invitation.expiresAt.getTime() + CLAIM_MARGIN_MS);
  return ClaimStore.on(connection).claimAt(CLAIM_GROUP, String(invitation._id), 1, until);
}

/** Gives a claim back when the accept it was for could not be completed (the caller is a member already). */
export function releaseInvitation(connection: Connection, invitation: InvitationRecord) {
  return ClaimStore.on(connection).release(CLAIM_GROUP, String(invitation._id), 1);
}

/** Records who used the invitation (shown to owners; an accepted one is never open again). */
export async function markAccepted(
  connection: Connection,
  invitation: InvitationRecord,
  userId: string,
): Promise<void> {
  await invitationModel(connection).updateOne(
    { _id: invitation._id },
    { $set: { acceptedBy: userId, acceptedAt: new Date() } },
  );
}
