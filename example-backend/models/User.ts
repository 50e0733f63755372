/** The example's user: a name plus the built-in auth fields (the password hash is `select: false`). */
import mongoose, { Schema } from "mongoose";
import { authUserFields, authUserPlugin } from "../../src/index.js";

// The spread types the auth fields (a plugin cannot change a schema's type); the plugin adds
// their middleware.
const userSchema = new Schema(
  { ...authUserFields, name: { type: String, trim: true, maxlength: 100 } },
  { timestamps: true },
);
userSchema.plugin(authUserPlugin);

export const User = mongoose.model("User", userSchema);

// The example's own user field, declared once: `ctx.user?.name` is typed in every hook, action
// and tool. (An app that installed the package writes `declare module "terreno-mcp"`.)
declare module "../../src/index.js" {
  interface UserFields {
    name?: string | null;
  }
}
