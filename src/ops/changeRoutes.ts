/**
 * The change records' routes (`changes: true`, docs/safe-writes.md), mounted by TerrenoApp:
 *
 * - `GET /changes` → newest first, `{data: [change], limit, offset}`. Admins see every change;
 *   anyone else only the changes they made themselves (so only records they wrote). Filters:
 *   `record` (a record's id), `model`, `client` (a personal token's id), `surface`, `since` and
 *   `until` (ISO dates), `limit` (default 50, at most 500), `offset`.
 * - `POST /changes/:id/undo` → undoes one of the caller's own changes (changeUndo.ts); the undo's
 *   write answers as its surface would (the restored or updated record, or `{id, deleted}`).
 *
 * Hidden fields' values never leave (changeLog.ts `served`). Answers are never cached.
 */
import express, { type Request, type Router } from "express";
import { TerrenoError, toErrorBody, unauthenticated, validationFailed } from "../core/errors.js";
import { callContext } from "../core/services.js";
import type { AppServices, PlainObject, RequestContext } from "../core/types.js";
import { routeTemplate } from "../http/routeTemplate.js";
import type { OpenApiContribution, OpenApiHelpers, TerrenoPlugin } from "../plugin/types.js";
import { type ChangeQuery, listChanges } from "./changeList.js";
import type { ChangeLog } from "./changeLog.js";
import { changesOpenApi } from "./changeRoutesOpenApi.js";
import { undoChange } from "./changeUndo.js";
import { clientIp } from "./rateLimitKeys.js";

const CHANGES_PATH = "/changes";
const MAX_LIMIT = 500;

function contextOf(req: Request, services: AppServices): RequestContext {
  const route = routeTemplate(req);
  return callContext(services, {
    user: req.user,
    transport: "rest",
    headers: req.headers as Record<string, string | undefined>,
    raw: req,
    operation: route ? `${req.method} ${route}` : req.method,
  });
}

function queryText(req: Request, name: string): string | undefined {
  const value = req.query[name];
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

function queryDate(req: Request, name: string): Date | undefined {
  const value = queryText(req, name);
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) {
    throw validationFailed("Invalid query.", { [name]: "must be an ISO date" });
  }
  return date;
}

function queryCount(req: Request, name: string, fallback: number, max: number): number {
  const value = queryText(req, name);
  if (value === undefined) return fallback;
  const count = Number(value);
  if (!Number.isSafeInteger(count) || count < 0 || count > max) {
    throw validationFailed("Invalid query.", { [name]: `must be an integer from 0 to ${max}` });
  }
  return count;
}

/** The list's query from the request's query string. */
function listQuery(req: Request): ChangeQuery {
  const since = queryDate(req, "since");
  const until = queryDate(req, "until");
  const query: ChangeQuery = {
    limit: queryCount(req, "limit", 50, MAX_LIMIT),
    offset: queryCount(req, "offset", 0, Number.MAX_SAFE_INTEGER),
    ...(since ? { since } : {}),
    ...(until ? { until } : {}),
  };
  for (const name of ["record", "model", "client", "surface"] as const) {
    const value = queryText(req, name);
    if (value !== undefined) query[name] = value;
  }
  return query;
}

function changesRouter(log: ChangeLog, services: AppServices): Router {
  const router = express.Router();
  router.use((req, response, next) => {
    response.set("Cache-Control", "no-store");
    const limits = services.rateLimits;
    if (!limits || req.method === "GET" || req.method === "HEAD") return next();
    limits.consume({ action: "write", user: req.user, ip: clientIp(req) }).then(() => next(), next);
  });
  router.get("/", async (req, res) => {
    const ctx = contextOf(req, services);
    if (!ctx.user?.id) throw unauthenticated();
    res.json(await listChanges(log, ctx, listQuery(req)));
  });
  router.post("/:id/undo", async (req, res) => {
    const ctx = contextOf(req, services);
    if (!ctx.user?.id) throw unauthenticated();
    try {
      res.json({ data: await undoChange(log, ctx, String(req.params.id)) });
    } catch (error) {
      const change = (error as { change?: PlainObject }).change;
      if (!(error instanceof TerrenoError) || !change) throw error;
      res.status(error.status).json({ ...toErrorBody(error), change });
    }
  });
  return router;
}

/** The routes as a plugin: TerrenoApp registers it when `changes` is on. */
export function changeRoutesPlugin(log: ChangeLog): TerrenoPlugin {
  return {
    name: "changes",
    register(app, ctx) {
      app.use(CHANGES_PATH, changesRouter(log, ctx.services));
    },
    openApi: (helpers: OpenApiHelpers): OpenApiContribution =>
      changesOpenApi(helpers, CHANGES_PATH),
  };
}
