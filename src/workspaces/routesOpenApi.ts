/** The workspace management routes (routes.ts) in `/openapi.json`. */
import type { OpenApiContribution, OpenApiHelpers, OpenApiJson } from "../plugin/types.js";

const TAG = "Workspaces";

interface Described {
  workspaces: string;
  invitations: string;
  roles: readonly string[];
  maxExpiresInDays: number;
  defaultExpiresInDays: number;
}

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function data(schema: OpenApiJson, description: string): OpenApiJson {
  return {
    description,
    content: {
      "application/json": {
        schema: { type: "object", properties: { data: schema }, required: ["data"] },
      },
    },
  };
}

function body(schema: OpenApiJson): OpenApiJson {
  return { required: true, content: { "application/json": { schema } } };
}

const pathParameter = (name: string, description: string): OpenApiJson => ({
  name,
  in: "path",
  required: true,
  description,
  schema: { type: "string" },
});

export function workspaceOpenApi(
  helpers: OpenApiHelpers,
  described: Described,
): OpenApiContribution {
  const security = helpers.security.length > 0 ? { security: [...helpers.security] } : {};
  const limited = helpers.rateLimited ? [429] : [];
  const role = { type: "string", enum: [...described.roles] };
  const name = { type: "string", minLength: 1, maxLength: 200 };
  const id = pathParameter("id", "The workspace's id.");
  const userId = pathParameter("userId", "The member's user id.");
  const op = (operation: OpenApiJson, statuses: number[]): OpenApiJson => ({
    tags: [TAG],
    ...security,
    ...operation,
    responses: { ...(operation.responses as OpenApiJson), ...helpers.errors(statuses) },
  });
  const { workspaces, invitations } = described;
  return {
    tags: [
      {
        name: TAG,
        description:
          "The caller's workspaces, their members and roles, and invitations. A workspace the caller is not a member of answers 404.",
      },
    ],
    schemas: {
      Workspace: {
        type: "object",
        properties: { id: { type: "string" }, name: { type: "string" }, role },
        required: ["id", "name", "role"],
        description: "A workspace, with the caller's role in it.",
      },
      WorkspaceMember: {
        type: "object",
        properties: {
          userId: { type: "string" },
          role,
          createdAt: { type: ["string", "null"], format: "date-time" },
        },
        required: ["userId", "role", "createdAt"],
      },
      WorkspaceInvitation: {
        type: "object",
        properties: {
          id: { type: "string" },
          workspaceId: { type: "string" },
          role,
          expiresAt: { type: "string", format: "date-time" },
          token: {
            type: "string",
            description: "The single-use token (`tmwi_…`), shown this once: pass it on.",
          },
        },
        required: ["id", "workspaceId", "role", "expiresAt", "token"],
      },
    },
    paths: {
      [workspaces]: {
        get: op(
          {
            operationId: "listWorkspaces",
            summary: "The caller's workspaces, with their role in each",
            responses: {
              "200": data({ type: "array", items: schemaRef("Workspace") }, "The workspaces."),
            },
          },
          [401],
        ),
        post: op(
          {
            operationId: "createWorkspace",
            summary: "Create a workspace; the caller becomes its owner",
            requestBody: body({
              type: "object",
              properties: { name },
              required: ["name"],
              additionalProperties: false,
            }),
            responses: { "201": data(schemaRef("Workspace"), "The new workspace.") },
          },
          [400, 401, 403, ...limited],
        ),
      },
      [`${workspaces}/{id}`]: {
        patch: op(
          {
            operationId: "updateWorkspace",
            summary: "Rename a workspace (owners)",
            parameters: [id],
            requestBody: body({
              type: "object",
              properties: { name },
              required: ["name"],
              additionalProperties: false,
            }),
            responses: { "200": data(schemaRef("Workspace"), "The workspace.") },
          },
          [400, 401, 403, 404, ...limited],
        ),
      },
      [`${workspaces}/{id}/members`]: {
        get: op(
          {
            operationId: "listWorkspaceMembers",
            summary: "The workspace's members and their roles (members)",
            parameters: [id],
            responses: {
              "200": data({ type: "array", items: schemaRef("WorkspaceMember") }, "The members."),
            },
          },
          [401, 404],
        ),
      },
      [`${workspaces}/{id}/members/{userId}`]: {
        patch: op(
          {
            operationId: "updateWorkspaceMember",
            summary: "Change a member's role (owners); the last owner cannot be demoted (409)",
            parameters: [id, userId],
            requestBody: body({
              type: "object",
              properties: { role },
              required: ["role"],
              additionalProperties: false,
            }),
            responses: { "200": data(schemaRef("WorkspaceMember"), "The member.") },
          },
          [400, 401, 403, 404, 409, ...limited],
        ),
        delete: op(
          {
            operationId: "removeWorkspaceMember",
            summary:
              "Remove a member (owners; anyone may remove themselves); the last owner cannot be removed (409)",
            parameters: [id, userId],
            responses: {
              "204": { description: "Removed: their next request no longer reaches it." },
            },
          },
          [401, 403, 404, 409, ...limited],
        ),
      },
      [`${workspaces}/{id}/invitations`]: {
        post: op(
          {
            operationId: "createWorkspaceInvitation",
            summary: "Invite someone with a single-use token (owners)",
            parameters: [id],
            requestBody: body({
              type: "object",
              properties: {
                role,
                expiresInDays: {
                  type: "integer",
                  minimum: 1,
                  maximum: described.maxExpiresInDays,
                  default: described.defaultExpiresInDays,
                },
              },
              required: ["role"],
              additionalProperties: false,
            }),
            responses: { "201": data(schemaRef("WorkspaceInvitation"), "The invitation.") },
          },
          [400, 401, 403, 404, ...limited],
        ),
      },
      [`${invitations}/{token}/accept`]: {
        post: op(
          {
            operationId: "acceptWorkspaceInvitation",
            summary: "Accept an invitation: the signed-in caller becomes a member",
            parameters: [pathParameter("token", "The invitation's token.")],
            responses: { "200": data(schemaRef("Workspace"), "The workspace joined.") },
          },
          [401, 403, 404, 409, ...limited],
        ),
      },
    },
  };
}
