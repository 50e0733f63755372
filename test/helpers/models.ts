/** Test models shared by REST and MCP suites: a user, an owned Todo (with a checklist and a reminder) and a Food with a populated owner. */
import mongoose, { Schema } from "mongoose";
import { authUserPlugin } from "../../src/auth/userPlugin.js";

const userSchema = new Schema({ name: { type: String, maxlength: 100 } }, { timestamps: true });
userSchema.plugin(authUserPlugin);
export const User = mongoose.models.User ?? mongoose.model("User", userSchema);

const todoSchema = new Schema(
  {
    title: { type: String, required: true, maxlength: 200 },
    completed: { type: Boolean, default: false },
    priority: { type: Number, min: 1, max: 5 },
    dueDate: Date,
    tags: [String],
    internalNote: String,
    ownerId: { type: Schema.Types.ObjectId, ref: "User", required: true },
    deleted: { type: Boolean, default: false },
    // An array of subdocuments (each read with its own `id`) and a plain nested object: the
    // shapes round trips and merge patches must handle, as the example app's Todo has them.
    checklist: [
      {
        text: { type: String, required: true, maxlength: 200 },
        done: { type: Boolean, default: false },
      },
    ],
    reminder: { at: Date, channel: { type: String, enum: ["email", "push"] } },
  },
  { timestamps: true },
);
export const Todo = mongoose.models.Todo ?? mongoose.model("Todo", todoSchema);

const foodSchema = new Schema(
  {
    name: { type: String, required: true, unique: true },
    calories: { type: Number, min: 0 },
    eatenAt: Date,
    ownerId: { type: Schema.Types.ObjectId, ref: "User" },
  },
  { timestamps: true },
);
export const Food = mongoose.models.Food ?? mongoose.model("Food", foodSchema);
