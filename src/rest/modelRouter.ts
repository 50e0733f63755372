/**
 * `modelRouter(Model, options)`: the REST adapter. Each route translates HTTP into a core
 * call and the result back into HTTP; every rule (405, 401/403/404, validation) lives in
 * the core, and every failure leaves through the app's one error middleware.
 */
import express, { type Request, type Response, type Router } from "express";
import type { ModelRouterOptions } from "../core/crudOptions.js";
import { action, create, list, read, remove, runOperation, update } from "../core/index.js";
import { isWrite } from "../core/isWrite.js";
import { defineResource, type Resource } from "../core/resource.js";
import type { AnyModel, AppServices } from "../core/types.js";
import { UNREADABLE_BODY } from "../core/validateBody.js";
import { errorMiddleware } from "../http/sendError.js";
import { restWriteLimit } from "../ops/rateLimit.js";
import { STANDALONE_SERVICES } from "../tools/services.js";
import { idempotent } from "./idempotent.js";
import { parseListQuery } from "./parseListQuery.js";
import { ifMatch, setEtag } from "./preconditions.js";
import { restContext } from "./requestContext.js";

const resources = new WeakMap<Router, Resource>();

/** The Resource behind a router made by `modelRouter`, for TerrenoApp and the MCP layer. */
export function resourceOf(router: unknown): Resource | undefined {
  return typeof router === "function" ? resources.get(router as Router) : undefined;
}

/** A body the JSON parser skipped (another content type) is reported by the core as a 415. */
function bodyOf(req: Request): unknown {
  if (req.body === undefined && Number(req.headers["content-length"] ?? 0) > 0) {
    return UNREADABLE_BODY;
  }
  return req.body ?? {};
}

/**
 * `POST /:id/<name>` (instance) or `POST /<name>` (collection) per action, answering
 * `{data}`. Mounted ahead of the router's write limit: actions spend write points unless
 * annotated read-only. An `Idempotency-Key` replays a retried call's first answer.
 */
function mountActions(router: Router, resource: Resource, services: AppServices): void {
  const { rateLimits } = services;
  for (const [name, config] of Object.entries(resource.options.actions ?? {})) {
    const limit = isWrite({ method: name, annotations: config.annotations })
      ? [restWriteLimit(resource, rateLimits)]
      : [];
    const path = config.scope === "instance" ? `/:id/${name}` : `/${name}`;
    router.post(path, ...limit, idempotent(services), async (req: Request, res: Response) => {
      const input = {
        ...(config.scope === "instance" ? { id: req.params.id } : {}),
        input: bodyOf(req),
      };
      const ctx = restContext(req, services);
      res.json({ data: await runOperation(() => action(resource, ctx, name, input)) });
    });
  }
}

/**
 * The REST routes of one model. The options are typed by the model: hooks, permissions and
 * actions receive its hydrated document, and field names are checked against its paths.
 *
 * The router returned serves the model on a plain Express app. TerrenoApp mounts, in its
 * place, `restRouter()` of the same resource with the app's services (logger, audit observer,
 * rate limits), so one router registered with two apps reports to each app's own.
 */
export function modelRouter<M extends AnyModel>(model: M, options: ModelRouterOptions<M>): Router {
  const resource = defineResource(model, options);
  // A router on a plain Express app: console logging, no audit observer, no rate limits.
  const router = restRouter(resource, STANDALONE_SERVICES);
  resources.set(router, resource);
  return router;
}

/**
 * The REST routes of a resource, reporting to and limited by the app's services: faults go to
 * its logger, every RequestContext carries them (audit observer, hidden fields), and
 * POST/PATCH/DELETE and writing actions spend its write points when its rate limits are on.
 */
export function restRouter(resource: Resource, services: AppServices): Router {
  const { rateLimits, logger } = services;
  const restCtx = (req: Request) => restContext(req, services);
  const router = express.Router();
  mountActions(router, resource, services);
  // POST/PATCH/DELETE spend the caller's write points (the app's limits, or this router's own).
  router.use(restWriteLimit(resource, rateLimits));

  router.get("/", async (req: Request, res: Response) => {
    res.json(await runOperation(() => list(resource, restCtx(req), parseListQuery(req))));
  });
  // An `Idempotency-Key` makes a retried create answer the first one's response (idempotent.ts).
  router.post("/", idempotent(services), async (req: Request, res: Response) => {
    const input = { body: bodyOf(req), populate: req.query.populate };
    const data = await runOperation(() => create(resource, restCtx(req), input));
    setEtag(res, data);
    res.status(201).json({ data });
  });
  // A GET whose If-None-Match names the ETag set here is a 304 (Express's freshness check).
  router.get("/:id", async (req: Request, res: Response) => {
    const input = { id: req.params.id, populate: req.query.populate };
    const data = await runOperation(() => read(resource, restCtx(req), input));
    setEtag(res, data);
    res.json({ data });
  });
  router.patch("/:id", async (req: Request, res: Response) => {
    const precondition = ifMatch(req);
    const input = {
      id: req.params.id,
      body: bodyOf(req),
      populate: req.query.populate,
      ...(precondition ? { precondition } : {}),
    };
    const data = await runOperation(() => update(resource, restCtx(req), input));
    setEtag(res, data);
    res.json({ data });
  });
  router.delete("/:id", async (req: Request, res: Response) => {
    const precondition = ifMatch(req);
    const input = { id: req.params.id, ...(precondition ? { precondition } : {}) };
    await runOperation(() => remove(resource, restCtx(req), input));
    res.status(204).end();
  });
  // Also catches failures when the router is mounted on a plain Express app.
  router.use(errorMiddleware(logger));
  return router;
}
