/**
 * `/projects`: a workspace's projects, over REST and as the MCP tools projects_list,
 * projects_read, projects_create, projects_update and projects_delete. The router's
 * `workspace` option keeps each call in the caller's current workspace (X-Workspace-Id, a bound
 * token, or their only one): another workspace's project is 404, and `workspaceId` is set by
 * the server. Viewers list and read; members also create and update; owners also delete.
 * `budgetCents` is the owners' alone: to members and viewers it is a field projects do not
 * have (absent from results, schemas, filters and sorts), and so not theirs to write either.
 */
import {
  type ModelRouterOptions,
  modelRouter,
  type PlainObject,
  type RequestContext,
  TerrenoError,
  WorkspaceRole,
} from "../../src/index.js";
import { Project } from "../models/Project.js";

/** A lead must be a member of the project's workspace (the current one). */
async function checkLead(body: PlainObject, ctx: RequestContext): Promise<PlainObject> {
  const { lead } = body;
  if (lead === undefined || lead === null || !ctx.user || !ctx.workspace) return body;
  const directory = ctx.services.workspaces;
  const { id } = await ctx.workspace.current();
  const memberships = directory ? await directory.membershipsOf(String(lead)) : [];
  if (!memberships.some((membership) => membership.workspaceId === id)) {
    throw new TerrenoError("validation_failed", "The lead must be a member of this workspace.", {
      lead: "must be a member of this workspace",
    });
  }
  return body;
}

const projectOptions: ModelRouterOptions<typeof Project> = {
  workspace: "workspaceId",
  permissions: {
    list: [WorkspaceRole("viewer")],
    read: [WorkspaceRole("viewer")],
    create: [WorkspaceRole("member")],
    update: [WorkspaceRole("member")],
    delete: [WorkspaceRole("owner")],
  },
  queryFields: ["name", "status", "lead", "budgetCents"],
  fields: { budgetCents: { read: [WorkspaceRole("owner")] } },
  sort: "-createdAt",
  populatePaths: [{ path: "lead", fields: ["name"] }],
  preCreate: checkLead,
  preUpdate: checkLead,
  mcp: {
    methods: ["list", "read", "create", "update", "delete"],
    maxLimit: 20,
  },
};

export const projectRouter = () => modelRouter(Project, projectOptions);
