/**
 * The contract world's workspaces (issue #35): Alpha (alice owner, carol viewer) and Beta (bob
 * owner), each actor with exactly one membership, so no call needs to choose. `Note` is scoped
 * by `workspaceId`: viewers list and read, members create and update, owners delete.
 */
import mongoose, { Schema } from "mongoose";
import { modelRouter, type PlainObject, type TerrenoApp, WorkspaceRole } from "../../src/index.js";

const noteSchema = new Schema({
  title: { type: String, required: true },
  body: String,
  workspaceId: { type: Schema.Types.ObjectId, ref: "Workspace", required: true },
  related: { type: Schema.Types.ObjectId, ref: "Note" },
});
export const Note = mongoose.models.Note ?? mongoose.model("Note", noteSchema);

export function registerNotes(app: TerrenoApp): TerrenoApp {
  return app.register(
    modelRouter(Note, {
      workspace: "workspaceId",
      permissions: {
        list: [WorkspaceRole("viewer")],
        read: [WorkspaceRole("viewer")],
        create: [WorkspaceRole("member")],
        update: [WorkspaceRole("member")],
        delete: [WorkspaceRole("owner")],
      },
      queryFields: ["title", "workspaceId", "related"],
      populatePaths: [{ path: "related", fields: ["title"] }],
      mcp: { methods: ["list", "read", "create", "update", "delete"] },
    }),
  );
}

export interface ContractWorkspaces {
  alpha: string;
  beta: string;
}

/** Alpha: alice (owner), carol (viewer). Beta: bob (owner). */
export async function seedWorkspaces(
  app: TerrenoApp,
  users: { alice: string; bob: string; carol: string },
): Promise<ContractWorkspaces> {
  const workspaces = app.workspaces;
  if (!workspaces) throw new Error("the contract app has workspaces");
  const { Workspace, Membership } = workspaces;
  const alpha = String((await Workspace.create({ name: "Alpha" }))._id);
  const beta = String((await Workspace.create({ name: "Beta" }))._id);
  await Membership.create([
    { workspaceId: alpha, userId: users.alice, role: "owner" },
    { workspaceId: alpha, userId: users.carol, role: "viewer" },
    { workspaceId: beta, userId: users.bob, role: "owner" },
  ]);
  return { alpha, beta };
}

let noteCounter = 0;

/** A note written directly to the database, in `workspaceId`. */
export async function seedNote(workspaceId: string, fields: PlainObject = {}): Promise<string> {
  noteCounter += 1;
  const doc = await Note.create({ title: `fixture note ${noteCounter}`, workspaceId, ...fields });
  return String(doc._id);
}

export async function storedNote(id: string): Promise<PlainObject | null> {
  return Note.findById(id).lean<PlainObject>();
}
