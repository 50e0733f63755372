/**
 * `modelRouter(Model, options)`: the REST adapter. Each route translates HTTP into a core
 * call and the result (or error) back into HTTP; every rule lives in the core.
 */
import express, { type Request, type Response, type Router } from "express";
import { methodNotAllowed } from "../core/errors.js";
import { create, list, read, remove, runOperation, update } from "../core/index.js";
import { isMethodEnabled } from "../core/permissions.js";
import { defineResource, type Resource } from "../core/resource.js";
import type { AnyModel, CrudMethod, CrudOptions } from "../core/types.js";
import { parseListQuery } from "./parseListQuery.js";
import { restContext } from "./requestContext.js";
import { sendError } from "./sendError.js";

const resources = new WeakMap<Router, Resource>();

/** The Resource behind a router made by `modelRouter`, for TerrenoApp and the MCP layer. */
export function resourceOf(router: unknown): Resource | undefined {
  return typeof router === "function" ? resources.get(router as Router) : undefined;
}

type Handler = (req: Request, res: Response) => Promise<void>;

function route(resource: Resource, method: CrudMethod, handle: Handler): Handler {
  return async (req, res) => {
    try {
      // The core raises the same 405; checking first keeps it ahead of body-format errors.
      if (!isMethodEnabled(resource.options.permissions, method)) throw methodNotAllowed(method);
      await handle(req, res);
    } catch (error) {
      sendError(res, error);
    }
  };
}

function requireJsonBody(req: Request): unknown {
  if (req.body === undefined && Number(req.headers["content-length"] ?? 0) > 0) {
    const error = new Error("unsupported media type") as Error & { status: number };
    error.status = 415;
    throw error;
  }
  return req.body ?? {};
}

export function modelRouter(model: AnyModel, options: CrudOptions): Router {
  const resource = defineResource(model, options);
  const router = express.Router();

  router.get(
    "/",
    route(resource, "list", async (req, res) => {
      res.json(await runOperation(() => list(resource, restContext(req), parseListQuery(req))));
    }),
  );
  router.post(
    "/",
    route(resource, "create", async (req, res) => {
      const body = requireJsonBody(req);
      const data = await runOperation(() =>
        create(resource, restContext(req), { body, populate: req.query.populate }),
      );
      res.status(201).json({ data });
    }),
  );
  router.get(
    "/:id",
    route(resource, "read", async (req, res) => {
      const data = await runOperation(() =>
        read(resource, restContext(req), { id: req.params.id, populate: req.query.populate }),
      );
      res.json({ data });
    }),
  );
  router.patch(
    "/:id",
    route(resource, "update", async (req, res) => {
      const body = requireJsonBody(req);
      const data = await runOperation(() =>
        update(resource, restContext(req), {
          id: req.params.id,
          body,
          populate: req.query.populate,
        }),
      );
      res.json({ data });
    }),
  );
  router.delete(
    "/:id",
    route(resource, "delete", async (req, res) => {
      await runOperation(() => remove(resource, restContext(req), { id: req.params.id }));
      res.status(204).end();
    }),
  );

  resources.set(router, resource);
  return router;
}
