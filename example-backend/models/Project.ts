/**
 * A team's project, kept in one workspace (`workspaceId`, stamped by the router's `workspace`
 * option from the caller's current workspace; no client can write it): a name, a status and an
 * optional lead, who must be a member of the same workspace (resources/projects.ts), and a
 * budget in whole cents that only the workspace's owners read (the router's `fields` rule).
 */
import mongoose, { Schema } from "mongoose";

const PROJECT_STATUSES = ["planned", "active", "done"] as const;

const projectSchema = new Schema(
  {
    name: { type: String, required: true, trim: true, maxlength: 200 },
    status: { type: String, enum: PROJECT_STATUSES, default: "planned" },
    lead: { type: Schema.Types.ObjectId, ref: "User" },
    budgetCents: {
      type: Number,
      min: 0,
      validate: { validator: Number.isInteger, message: "must be a whole number of cents" },
    },
    workspaceId: { type: Schema.Types.ObjectId, ref: "Workspace", required: true, index: true },
  },
  { timestamps: true },
);

export const Project = mongoose.model("Project", projectSchema);
