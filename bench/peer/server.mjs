// Child process: the upstream @terreno/api serving the same todo model, over the same database
// and collections, as bench/servers/ours.ts. Plain JavaScript so that type-checking the repo never
// needs bench/peer/node_modules; it resolves @terreno/api, mongoose and passport-local-mongoose
// from bench/peer/node_modules. Set up only through the package's documented public API.
import http from "node:http";
import { modelRouter, OwnerQueryFilter, Permissions, TerrenoApp } from "@terreno/api";
import mongoose, { Schema } from "mongoose";
import passportLocalMongooseModule from "passport-local-mongoose";

const uri = process.env.MONGODB_URI;
if (!uri) throw new Error("peer/server.mjs needs MONGODB_URI");
for (const name of ["TOKEN_SECRET", "TOKEN_ISSUER", "REFRESH_TOKEN_SECRET", "SESSION_SECRET"]) {
  if (!process.env[name]) throw new Error(`peer/server.mjs needs ${name}`);
}

// The package is CommonJS with an ES-module-style default export.
const passportLocalMongoose = passportLocalMongooseModule.default ?? passportLocalMongooseModule;

await mongoose.connect(uri, { serverSelectionTimeoutMS: 2000 });

// The same users collection as ours; @terreno/api's auth needs passport-local-mongoose's statics.
const userSchema = new Schema(
  {
    name: { type: String, trim: true, description: "Display name" },
    email: { type: String, lowercase: true, trim: true, description: "Login email" },
    admin: { type: Boolean, default: false, description: "Whether the user is an admin" },
    disabled: { type: Boolean, default: false, description: "Whether the user is disabled" },
  },
  { timestamps: true },
);
userSchema.plugin(passportLocalMongoose, { usernameField: "email" });
const User = mongoose.model("User", userSchema);

const todoSchema = new Schema(
  {
    title: { type: String, required: true, trim: true, maxlength: 200, description: "Title" },
    completed: { type: Boolean, default: false, description: "Whether it is done" },
    dueDate: { type: Date, description: "When it is due" },
    tags: [{ type: String, maxlength: 50, description: "A tag" }],
    ownerId: {
      type: Schema.Types.ObjectId,
      ref: "User",
      required: true,
      index: true,
      description: "The owner",
    },
  },
  { timestamps: true },
);
const Todo = mongoose.model("Todo", todoSchema);

const todos = modelRouter("/todos", Todo, {
  permissions: {
    list: [Permissions.IsAuthenticated],
    read: [Permissions.IsOwner],
    create: [Permissions.IsAuthenticated],
    update: [Permissions.IsOwner],
    delete: [Permissions.IsOwner],
  },
  queryFilter: OwnerQueryFilter,
  queryFields: ["title", "completed", "dueDate", "tags"],
  sort: "-createdAt",
  populatePaths: [{ path: "ownerId", fields: ["name"] }],
  preCreate: (body, req) => ({ ...body, ownerId: req.user?.id }),
  mcp: { methods: ["list", "read", "create", "update", "delete"], maxLimit: 50 },
});

// Quiet logging (errors only: no files, no per-request lines; its per-list pagination warning
// would otherwise print on every REST list), as ours logs nothing.
const app = new TerrenoApp({
  userModel: User,
  logRequests: false,
  skipListen: true,
  loggingOptions: {
    level: "error",
    disableFileLogging: true,
    disableTerrenoDevJsonlLog: true,
    disableConsoleColors: true,
    logRequests: false,
  },
})
  .register(todos)
  .build();

const server = http.createServer(app);
await new Promise((resolve, reject) => {
  server.once("error", reject);
  server.listen(0, "127.0.0.1", resolve);
});

const stop = async () => {
  server.closeAllConnections();
  server.close();
  await mongoose.disconnect();
};
process.on("message", (message) => {
  if (message?.type === "memory") {
    globalThis.gc?.();
    process.send?.({ type: "memory", ...process.memoryUsage() });
  } else if (message?.type === "stop") {
    stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  }
});
process.on("disconnect", () => {
  stop().finally(() => process.exit(0));
});
process.send?.({ type: "ready", ports: { main: server.address().port } });
