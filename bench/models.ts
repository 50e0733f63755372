/**
 * The benchmark's models, on the default Mongoose connection: a user with the built-in auth
 * fields and a todo owned by one user. Like the example backend's todo, plus a populated owner
 * (`ownerId` → the user's `name`), so every list pays for one population.
 */
import mongoose, { Schema } from "mongoose";
import {
  authUserPlugin,
  IsAuthenticated,
  IsOwner,
  type ModelRouterOptions,
  modelRouter,
  OwnerQueryFilter,
} from "../src/index.js";

const userSchema = new Schema(
  { name: { type: String, trim: true, maxlength: 100 } },
  { timestamps: true },
);
userSchema.plugin(authUserPlugin);
export const User = mongoose.model("User", userSchema);

const todoSchema = new Schema(
  {
    title: { type: String, required: true, trim: true, maxlength: 200 },
    completed: { type: Boolean, default: false },
    dueDate: Date,
    tags: [{ type: String, maxlength: 50 }],
    ownerId: { type: Schema.Types.ObjectId, ref: "User", required: true, index: true },
  },
  { timestamps: true },
);
export const Todo = mongoose.model("Todo", todoSchema);

export const todoOptions: ModelRouterOptions<typeof Todo> = {
  permissions: {
    list: [IsAuthenticated],
    read: [IsOwner],
    create: [IsAuthenticated],
    update: [IsOwner],
    delete: [IsOwner],
  },
  queryFilter: OwnerQueryFilter,
  queryFields: ["title", "completed", "dueDate", "tags"],
  sort: "-createdAt",
  populatePaths: [{ path: "ownerId", fields: ["name"] }],
  readOnlyFields: ["ownerId"],
  preCreate: (body, req) => ({ ...body, ownerId: req.user?.id }),
  mcp: { methods: ["list", "read", "create", "update", "delete"], maxLimit: 50 },
};

export const todoRouter = () => modelRouter(Todo, todoOptions);

/**
 * `count` generated models on a fresh, never-connected Mongoose connection, each a mix of
 * field kinds (strings with limits, numbers, enums, dates, arrays, a nested object, a ref),
 * for measuring how tools/list scales with the number of registered models.
 */
export function syntheticRouters(count: number) {
  const connection = mongoose.createConnection();
  const routers = [];
  for (let i = 0; i < count; i += 1) {
    const name = `Widget${String(i).padStart(3, "0")}`;
    const schema = new Schema(
      {
        name: { type: String, required: true, maxlength: 120 },
        description: { type: String, maxlength: 2000 },
        status: { type: String, enum: ["draft", "active", "archived"], default: "draft" },
        quantity: { type: Number, min: 0, max: 10_000 },
        price: Number,
        active: { type: Boolean, default: true },
        releasedAt: Date,
        labels: [{ type: String, maxlength: 40 }],
        dimensions: { width: Number, height: Number, unit: { type: String, maxlength: 8 } },
        ownerId: { type: Schema.Types.ObjectId, ref: "User" },
      },
      { timestamps: true },
    );
    const model = connection.model(name, schema);
    routers.push(
      modelRouter(model, {
        permissions: {
          list: [IsAuthenticated],
          read: [IsAuthenticated],
          create: [IsAuthenticated],
          update: [IsOwner],
          delete: [IsOwner],
        },
        queryFields: ["name", "status", "quantity", "price", "active", "releasedAt", "labels"],
        sort: "-createdAt",
        mcp: {},
      }),
    );
  }
  return routers;
}
