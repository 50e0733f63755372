// The consumer app's own models, unlike the example's: a ref, an array of subdocuments, a Map,
// a nested object with defaults and enums, so the package is tried on shapes it was not built for.
import mongoose, { Schema } from "mongoose";
import { authUserPlugin } from "terreno-mcp";

const userSchema = new Schema({ name: { type: String, required: true, maxlength: 80 } });
userSchema.plugin(authUserPlugin);
export const User = mongoose.model("User", userSchema);

export const PROJECT_STATUSES = ["planned", "active", "done"] as const;
export const MEMBER_ROLES = ["owner", "editor", "viewer"] as const;

const projectSchema = new Schema(
  {
    name: { type: String, required: true, maxlength: 120 },
    status: { type: String, enum: PROJECT_STATUSES, default: "planned" },
    settings: {
      visibility: { type: String, enum: ["private", "team", "public"], default: "team" },
      notifyOnChange: { type: Boolean, default: true },
      budget: { type: Number, min: 0 },
    },
    meta: { type: Map, of: String },
    members: [
      {
        user: { type: Schema.Types.ObjectId, ref: "User", required: true },
        role: { type: String, enum: MEMBER_ROLES, default: "viewer" },
      },
    ],
    milestones: [
      {
        title: { type: String, required: true, maxlength: 120 },
        due: Date,
        done: { type: Boolean, default: false },
      },
    ],
    ownerId: { type: Schema.Types.ObjectId, ref: "User" },
  },
  { timestamps: true },
);
export const Project = mongoose.model("Project", projectSchema);

const taskSchema = new Schema(
  {
    title: { type: String, required: true, maxlength: 200 },
    project: { type: Schema.Types.ObjectId, ref: "Project", required: true },
    assignee: { type: Schema.Types.ObjectId, ref: "User" },
    tags: [String],
    ownerId: { type: Schema.Types.ObjectId, ref: "User" },
  },
  { timestamps: true },
);
export const Task = mongoose.model("Task", taskSchema);
