/**
 * A todo owned by one user: a priority, a checklist of items (each read with its own `id`, so
 * an edited list round-trips) and an optional reminder. `internalNote` is REST-only: it is
 * excluded from MCP and AI tools.
 */
import mongoose, { Schema } from "mongoose";

const checklistItemSchema = new Schema({
  text: { type: String, required: true, trim: true, maxlength: 200 },
  done: { type: Boolean, default: false },
});

const todoSchema = new Schema(
  {
    title: { type: String, required: true, trim: true, maxlength: 200 },
    completed: { type: Boolean, default: false },
    dueDate: Date,
    /** 1 (highest) to 5; filterable and sortable. */
    priority: { type: Number, min: 1, max: 5 },
    tags: [{ type: String, maxlength: 50 }],
    checklist: [checklistItemSchema],
    reminder: {
      at: Date,
      channel: { type: String, enum: ["email", "push"] },
    },
    internalNote: { type: String, maxlength: 2000 },
    /** When the todo was first completed, set by the server (the todos_complete action). */
    completedAt: Date,
    // Set from the caller by the router's preCreate hook; no client can write it.
    ownerId: { type: Schema.Types.ObjectId, ref: "User", required: true, index: true },
  },
  { timestamps: true },
);

export const Todo = mongoose.model("Todo", todoSchema);
