/** The example's user: a name plus the built-in auth fields (the password hash is `select: false`). */
import mongoose, { Schema } from "mongoose";
import { authUserPlugin } from "../../src/index.js";

const userSchema = new Schema(
  { name: { type: String, trim: true, maxlength: 100 } },
  { timestamps: true },
);
userSchema.plugin(authUserPlugin);

export const User = mongoose.model("User", userSchema);
