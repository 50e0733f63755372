/**
 * The workspace management routes (admin.ts runs them), mounted by TerrenoApp when the app has
 * workspaces in the framework's models (`workspaces: true` or options without `membershipsOf`):
 *
 * - `GET /workspaces` → the caller's workspaces `[{id, name, role}]`;
 * - `POST /workspaces {name}` → 201, the caller is its owner;
 * - `PATCH /workspaces/:id {name}` (owners);
 * - `GET /workspaces/:id/members` (members) → `[{userId, role, createdAt}]`;
 * - `PATCH /workspaces/:id/members/:userId {role}` (owners);
 * - `DELETE /workspaces/:id/members/:userId` (owners; anyone may remove themselves) → 204;
 * - `POST /workspaces/:id/invitations {role, expiresInDays?}` (owners) → 201 `{id, workspaceId,
 *   role, expiresAt, token}`, the token shown this once;
 * - `POST /invitations/:token/accept` (signed in) → the workspace joined, `{id, name, role}`.
 *
 * Each request gets its RequestContext from `callContext` like every other route, so writes reach
 * the app's audit observer; POST, PATCH and DELETE spend the caller's write points under the
 * app's rate limits. Answers are never cached (an invitation's token is a credential).
 */
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from "express";
import type { Connection } from "mongoose";
import { callContext } from "../core/services.js";
import type { AppServices, RequestContext } from "../core/types.js";
import { WORKSPACE_HEADER } from "../core/workspace.js";
import { routeTemplate } from "../http/routeTemplate.js";
import { clientIp } from "../ops/rateLimitKeys.js";
import type { OpenApiContribution, OpenApiHelpers, TerrenoPlugin } from "../plugin/types.js";
import {
  acceptInvitation,
  createWorkspace,
  DEFAULT_INVITATION_LIMITS,
  inviteToWorkspace,
  listMembers,
  listMyWorkspaces,
  removeMember,
  updateMember,
  updateWorkspace,
  type WorkspaceAdmin,
} from "./admin.js";
import type { Workspaces } from "./directory.js";
import { workspaceOpenApi } from "./routesOpenApi.js";

/** Where the routes are mounted. */
const WORKSPACES_PATH = "/workspaces";
const INVITATIONS_PATH = "/invitations";

/**
 * The call's context. On `/workspaces/:id/...` the workspace the path names is the call's own
 * (`X-Workspace-Id`, whatever the client sent), so its audit events carry it.
 */
function contextOf(req: Request, services: AppServices): RequestContext {
  const route = routeTemplate(req);
  const headers = req.headers as Record<string, string | undefined>;
  const workspaceId = req.baseUrl === WORKSPACES_PATH ? req.params.id : undefined;
  return callContext(services, {
    user: req.user,
    transport: "rest",
    headers:
      typeof workspaceId === "string" ? { ...headers, [WORKSPACE_HEADER]: workspaceId } : headers,
    raw: req,
    operation: route ? `${req.method} ${route}` : req.method,
  });
}

/** POST, PATCH and DELETE spend the caller's write points, as the model routers' writes do. */
function writeLimit(services: AppServices): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const limits = services.rateLimits;
    if (!limits || req.method === "GET" || req.method === "HEAD") return next();
    limits.consume({ action: "write", user: req.user, ip: clientIp(req) }).then(() => next(), next);
  };
}

function noStore(_req: Request, res: Response, next: NextFunction): void {
  res.set("Cache-Control", "no-store");
  next();
}

const param = (req: Request, name: string) => String(req.params[name]);

function workspaceRouter(admin: WorkspaceAdmin, services: AppServices): Router {
  const router = express.Router();
  const ctx = (req: Request) => contextOf(req, services);
  router.use(noStore, writeLimit(services));
  router.get("/", async (req, res) => {
    res.json({ data: await listMyWorkspaces(admin, ctx(req)) });
  });
  router.post("/", async (req, res) => {
    res.status(201).json({ data: await createWorkspace(admin, ctx(req), req.body) });
  });
  router.patch("/:id", async (req, res) => {
    res.json({ data: await updateWorkspace(admin, ctx(req), param(req, "id"), req.body) });
  });
  router.get("/:id/members", async (req, res) => {
    res.json({ data: await listMembers(admin, ctx(req), param(req, "id")) });
  });
  router.patch("/:id/members/:userId", async (req, res) => {
    const data = await updateMember(
      admin,
      ctx(req),
      param(req, "id"),
      param(req, "userId"),
      req.body,
    );
    res.json({ data });
  });
  router.delete("/:id/members/:userId", async (req, res) => {
    await removeMember(admin, ctx(req), param(req, "id"), param(req, "userId"));
    res.status(204).end();
  });
  router.post("/:id/invitations", async (req, res) => {
    const data = await inviteToWorkspace(admin, ctx(req), param(req, "id"), req.body);
    res.status(201).json({ data });
  });
  return router;
}

function invitationRouter(admin: WorkspaceAdmin, services: AppServices): Router {
  const router = express.Router();
  router.use(noStore, writeLimit(services));
  router.post("/:token/accept", async (req, res) => {
    const data = await acceptInvitation(admin, contextOf(req, services), param(req, "token"));
    res.json({ data });
  });
  return router;
}

/**
 * The routes as a plugin: TerrenoApp registers it, and its paths join `/openapi.json`.
 * `workspaces`: the app's, in the framework's models; `connection`: the app's (invitations and
 * the owner lock live there).
 */
export function workspaceRoutesPlugin(
  workspaces: Workspaces,
  connection: Connection,
): TerrenoPlugin {
  const admin: WorkspaceAdmin = { workspaces, connection, invitations: DEFAULT_INVITATION_LIMITS };
  return {
    name: "workspaces",
    register(app, ctx) {
      app.use(WORKSPACES_PATH, workspaceRouter(admin, ctx.services));
      app.use(INVITATIONS_PATH, invitationRouter(admin, ctx.services));
    },
    openApi: (helpers: OpenApiHelpers): OpenApiContribution =>
      workspaceOpenApi(helpers, {
        workspaces: WORKSPACES_PATH,
        invitations: INVITATIONS_PATH,
        roles: admin.workspaces.roles,
        maxExpiresInDays: admin.invitations.maxExpiresInDays,
        defaultExpiresInDays: admin.invitations.defaultExpiresInDays,
      }),
  };
}
