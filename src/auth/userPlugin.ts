/**
 * A Mongoose plugin adding the fields the built-in auth needs to a user schema. The
 * password hash is `select: false`, so it is hidden on every surface by construction.
 */
import type { Schema } from "mongoose";
import type { User } from "../core/types.js";

export function authUserPlugin(schema: Schema): void {
  schema.add({
    email: {
      type: String,
      required: true,
      unique: true,
      lowercase: true,
      trim: true,
      maxlength: 254,
    },
    passwordHash: { type: String, select: false },
    admin: { type: Boolean, default: false },
    disabled: { type: Boolean, default: false },
  });
}

interface UserDocumentLike {
  _id: unknown;
  toObject?: (options?: object) => Record<string, unknown>;
}

/** The caller object hooks and permissions receive: the user's fields, with `id` as a string. */
export function toUser(doc: UserDocumentLike): User {
  const fields =
    typeof doc.toObject === "function" ? doc.toObject({ versionKey: false }) : { ...doc };
  delete fields.passwordHash;
  return { ...fields, _id: doc._id, id: String(doc._id) };
}
