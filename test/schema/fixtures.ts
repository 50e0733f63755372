/**
 * Models shared by the schema tests, each built on its own Mongoose instance so no test
 * touches the global registry and no database connection is needed.
 */
import mongoose from "mongoose";
import type { AnyModel } from "../../src/core/types.js";

/** The representative model whose generated schemas are asserted in full. */
export function buildTodoModel(): { Todo: AnyModel; User: AnyModel } {
  const m = new mongoose.Mongoose();
  const User = m.model("User", new m.Schema({ name: String, email: String, password: String }));
  const Item = new m.Schema({ name: { type: String, required: true }, qty: Number });
  const schema = new m.Schema(
    {
      title: { type: String, required: true, maxlength: 200 },
      completed: { type: Boolean, default: false },
      dueDate: Date,
      tags: [String],
      internalNote: String,
      ownerId: { type: m.Schema.Types.ObjectId, ref: "User" },
      priority: { type: Number, min: 1, max: 5 },
      status: { type: String, enum: ["open", "closed"] },
      address: { city: String, zip: { type: String, match: /^\d{5}$/ } },
      items: [Item],
      meta: { type: Map, of: Number },
      extra: m.Schema.Types.Mixed,
      secret: { type: String, select: false },
    },
    { timestamps: true },
  );
  return { Todo: m.model("Todo", schema), User };
}

/** A fresh Mongoose instance for one-off schemas. */
export function freshMongoose(): mongoose.Mongoose {
  return new mongoose.Mongoose();
}
