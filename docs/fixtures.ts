/**
 * The names the guides' code blocks use without declaring them, so a block can show one option
 * without repeating a whole server. They are the models and app of README.md's "Add it to your
 * app", plus the example's `Food` and a few values. `npm run test:docs` compiles every block
 * with these in scope; a block that declares one of these names itself uses its own.
 */
import mongoose, { Schema } from "mongoose";
import type { TerrenoApp } from "terreno-mcp";
import { authUserFields, authUserPlugin } from "terreno-mcp";

const userSchema = new Schema({ ...authUserFields, name: String }, { timestamps: true });
userSchema.plugin(authUserPlugin);
const UserModel = mongoose.model("User", userSchema);

const todoSchema = new Schema(
  {
    title: { type: String, required: true },
    completed: { type: Boolean, default: false },
    dueDate: Date,
    priority: { type: Number, min: 1, max: 5 },
    tags: [{ type: String, maxlength: 50 }],
    checklist: [new Schema({ text: { type: String, required: true }, done: Boolean })],
    reminder: { at: Date, channel: { type: String, enum: ["email", "push"] } },
    internalNote: String,
    completedAt: Date,
    ownerId: { type: Schema.Types.ObjectId, ref: "User", required: true },
  },
  { timestamps: true },
);
const TodoModel = mongoose.model("Todo", todoSchema);

const foodSchema = new Schema(
  {
    name: { type: String, required: true },
    calories: Number,
    ownerId: { type: Schema.Types.ObjectId, ref: "User", required: true },
  },
  { timestamps: true },
);
const FoodModel = mongoose.model("Food", foodSchema);

declare global {
  /** The app's user model: `name` plus `authUserPlugin`'s fields. */
  const User: typeof UserModel;
  /** An owned todo, as in the example backend. */
  const Todo: typeof TodoModel;
  /** A shared food log entry, as in the example backend. */
  const Food: typeof FoodModel;
  /** A TerrenoApp the block registers things on. */
  const app: TerrenoApp;
  /** The JWT secret, e.g. `process.env.JWT_SECRET`. */
  const secret: string;
}
