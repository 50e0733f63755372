// The consumer app: its two models as REST routes and MCP tools, JWT sign-up, and the chat
// plugin when a language model is given. Built the way an adopter would, from the package alone.
import type { LanguageModel } from "ai";
import {
  defineAction,
  IsAuthenticated,
  IsOwner,
  modelRouter,
  OwnerQueryFilter,
  type RequestContext,
  TerrenoApp,
  TerrenoError,
} from "terreno-mcp";
import { chatPlugin } from "terreno-mcp/chat";
import { z } from "zod";
import { Project, Task, User } from "./models.js";

const ownerOnly = {
  list: [IsAuthenticated],
  create: [IsAuthenticated],
  read: [IsOwner],
  update: [IsOwner],
  delete: [IsOwner],
};

function withOwner<T extends object>(body: T, req: RequestContext): T & { ownerId?: string } {
  return { ...body, ownerId: req.user?.id };
}

/** An instance action on a subdocument array and a Map, the shapes the example never has. */
const completeMilestone = defineAction(Project, {
  scope: "instance",
  description: "Marks one milestone done and records its title in the project's meta.",
  input: z.object({ milestoneId: z.string() }).strict(),
  permissions: [IsOwner],
  annotations: { idempotentHint: true, destructiveHint: false },
  handler: async (_ctx, project, input) => {
    const milestone = project.milestones.id(input.milestoneId);
    if (!milestone) throw new TerrenoError("not_found", "No such milestone.");
    milestone.done = true;
    // A project created without `meta` has none: Mongoose leaves an unset Map undefined.
    if (!project.meta) project.meta = new Map();
    project.meta.set("lastMilestone", milestone.title);
    await project.save();
    return project;
  },
});

export interface BuildOptions {
  jwtSecret: string;
  /** When given, POST /chat answers with this model; writes wait for approval. */
  chatModel?: LanguageModel;
}

export function buildApp(options: BuildOptions): TerrenoApp {
  const app = new TerrenoApp({ userModel: User, auth: { jwt: { secret: options.jwtSecret } } })
    .register(
      modelRouter(Project, {
        permissions: ownerOnly,
        queryFields: ["name", "status", "settings.visibility"],
        queryFilter: OwnerQueryFilter,
        readOnlyFields: ["ownerId"],
        sort: "-createdAt",
        preCreate: withOwner,
        actions: { complete_milestone: completeMilestone },
        mcp: { methods: ["list", "read", "create", "update", "delete"] },
      }),
    )
    .register(
      modelRouter(Task, {
        permissions: ownerOnly,
        queryFields: ["title", "project", "assignee", "tags"],
        queryFilter: OwnerQueryFilter,
        readOnlyFields: ["ownerId"],
        populatePaths: [{ path: "project", fields: ["name", "status"] }],
        preCreate: withOwner,
        mcp: { methods: ["list", "read", "create", "update"] },
      }),
    );
  if (options.chatModel) app.register(chatPlugin({ model: options.chatModel }));
  return app;
}
