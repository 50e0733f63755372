/** A todo owned by one user. `internalNote` is REST-only: it is excluded from MCP and AI tools. */
import mongoose, { Schema } from "mongoose";

const todoSchema = new Schema(
  {
    title: { type: String, required: true, trim: true, maxlength: 200 },
    completed: { type: Boolean, default: false },
    dueDate: Date,
    tags: [{ type: String, maxlength: 50 }],
    internalNote: { type: String, maxlength: 2000 },
    // Set from the caller by the router's preCreate hook; no client can write it.
    ownerId: { type: Schema.Types.ObjectId, ref: "User", required: true, index: true },
  },
  { timestamps: true },
);

export const Todo = mongoose.model("Todo", todoSchema);
