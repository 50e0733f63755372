/**
 * Compile-time tests of the types `modelRouter` takes from the model: checked by `npm run
 * typecheck`, never run. Each `@ts-expect-error` must meet an error, so removing a check
 * (typing `queryFields` as `string[]` again, say) fails the type check.
 */
import mongoose, { Schema } from "mongoose";
import { z } from "zod";
import {
  defineAction,
  IsAuthenticated,
  IsOwner,
  type ModelPath,
  type ModelRouterOptions,
  modelRouter,
  type PermissionMethod,
  type RawDocOf,
} from "../../src/index.js";

// A model that is not the example's: a ref, an array of subdocuments, a Map, a nested object
// and an enum.
const milestoneSchema = new Schema({
  title: { type: String, required: true },
  due: Date,
});
const projectSchema = new Schema(
  {
    name: { type: String, required: true },
    status: { type: String, enum: ["active", "archived"], default: "active" },
    ownerId: { type: Schema.Types.ObjectId, ref: "User", required: true },
    milestones: [milestoneSchema],
    meta: { type: Map, of: String },
    settings: { theme: String, notify: { email: Boolean, digest: { hour: Number } } },
  },
  { timestamps: true },
);
// Never registered on a connection: this file is only type-checked.
const Project = mongoose.model("TypeTestProject", projectSchema);

const permissions = { list: [IsAuthenticated], read: [IsOwner], update: [IsOwner] };

// The model's paths, nested and in subdocument arrays, compile.
modelRouter(Project, {
  permissions,
  queryFields: ["name", "status", "ownerId", "createdAt", "_id", "milestones.title"],
  sort: "-createdAt",
  readOnlyFields: ["ownerId", "settings.notify.email", "settings.notify.digest.hour"],
  populatePaths: [{ path: "ownerId", fields: ["name"] }],
  mcp: { excludeFields: ["meta", "theme", "settings.theme", "due"] },
});
modelRouter(Project, { permissions, sort: { status: 1, "milestones.due": -1 } });
modelRouter(Project, { permissions, sort: "status,-name" });

// A wrong name is a compile error, in each option.
modelRouter(Project, {
  permissions,
  // @ts-expect-error: no such field
  queryFields: ["no_such_field"],
});
modelRouter(Project, {
  permissions,
  // @ts-expect-error: a nested field needs its path
  queryFields: ["theme"],
});
// @ts-expect-error: sort on a field the model lacks
modelRouter(Project, { permissions, sort: "-updatedOn" });
// @ts-expect-error: sort object naming a field the model lacks
modelRouter(Project, { permissions, sort: { nmae: 1 } });
// @ts-expect-error: populate a path the model lacks
modelRouter(Project, { permissions, populatePaths: [{ path: "owner" }] });
// @ts-expect-error: exclude a field the model lacks, at any depth
modelRouter(Project, { permissions, mcp: { excludeFields: ["secret"] } });
// @ts-expect-error: read-only field the model lacks
modelRouter(Project, { permissions, readOnlyFields: ["milestones.name"] });

// Hooks, permissions and actions receive the model's document, not `any`.
modelRouter(Project, {
  permissions: {
    read: [(_method, _user, project) => project?.status !== "archived"],
    // @ts-expect-error: the document has no `archived` field
    update: [(_method, _user, project) => project?.archived !== true],
  },
  postCreate: (project) => {
    const name: string = project.name;
    void name;
    // @ts-expect-error: a Map field may be absent; `.set()` on it must be guarded
    project.meta.set("k", "v");
    project.meta?.set("k", "v");
  },
  postUpdate: (project, _body, _req, previous) => {
    // @ts-expect-error: no such field on the document
    void project.titel;
    void previous.milestones[0]?.title;
  },
  actions: {
    archive: {
      scope: "instance",
      description: "Archives a project.",
      permissions: [IsOwner],
      handler: async (_ctx, project) => {
        project.status = "archived";
        // @ts-expect-error: "deleted" is not one of the enum's values
        project.status = "deleted";
        await project.save();
        return project;
      },
    },
    rename: defineAction({
      scope: "instance",
      description: "Renames a project.",
      input: z.object({ name: z.string() }),
      output: z.object({ name: z.string() }),
      permissions: [IsOwner],
      handler: (_ctx, project, input) => {
        project.name = input.name;
        return { name: project.name };
      },
    }),
    misnamed: defineAction({
      scope: "collection",
      description: "Returns the wrong shape for its output.",
      output: z.object({ count: z.number() }),
      permissions: [IsAuthenticated],
      // @ts-expect-error: the result must match `output`
      handler: () => ({ count: "three" }),
    }),
    untyped: {
      scope: "collection",
      description: "Without defineAction the input is unknown, not any.",
      permissions: [IsAuthenticated],
      // @ts-expect-error: `input` is unknown here
      handler: (_ctx, input) => input.name,
    },
  },
});

// Options written apart from the call are typed by the model too.
const archivedOnly: PermissionMethod<{ status?: string | null }> = (_m, _u, obj) =>
  obj?.status === "archived";
export const projectOptions: ModelRouterOptions<typeof Project> = {
  permissions: { list: [IsAuthenticated], delete: [archivedOnly] },
  queryFields: ["name"],
};
export const wrongOptions: ModelRouterOptions<typeof Project> = {
  permissions: {},
  // @ts-expect-error: checked apart from the call as well
  queryFields: ["nmae"],
};
modelRouter(Project, projectOptions);

// The path type itself: a sample of what it holds.
type ProjectPath = ModelPath<RawDocOf<typeof Project>>;
export const paths: ProjectPath[] = ["settings.notify.digest.hour", "meta.anyKey", "milestones"];
// @ts-expect-error: sub-paths of a leaf do not exist
export const leafPath: ProjectPath = "name.first";

// Defined apart from the router, an action takes the model to type its document.
export const closeMilestone = defineAction(Project, {
  scope: "instance",
  description: "Closes a milestone.",
  input: z.object({ milestoneId: z.string() }),
  permissions: [IsOwner],
  handler: async (_ctx, project, input) => {
    const milestone = project.milestones.id(input.milestoneId);
    // @ts-expect-error: `id()` may find nothing
    milestone.due = new Date();
    if (milestone) milestone.due = new Date();
    return project.save();
  },
});
modelRouter(Project, { permissions, actions: { close_milestone: closeMilestone } });
export const blind = defineAction({
  scope: "instance",
  description: "No model given.",
  permissions: [IsOwner],
  // @ts-expect-error: without the model, a standalone action's document is unknown
  handler: (_ctx, project) => project.name,
});
