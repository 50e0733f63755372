/** The REST driver: supertest against `app.build()`, HTTP status and JSON body normalized. */
import type { Express } from "express";
import qs from "qs";
import request from "supertest";
import { failureFromBody, type Outcome } from "../outcome.js";
import type { Actor, World } from "../world.js";
import type { Collection, Driver, ListArgs } from "./types.js";

/**
 * The list arguments in the documented query-string syntax: `calories[$gt]=100`,
 * `title[$in][]=a&title[$in][]=b`, plus `sort`, `page` and `limit`.
 */
export function toQueryString(args: ListArgs = {}): string {
  const { filter = {}, ...paging } = args;
  return qs.stringify(
    { ...filter, ...paging },
    { encodeValuesOnly: true, arrayFormat: "brackets" },
  );
}

function normalize(res: request.Response): Outcome {
  const raw = res.text ?? "";
  if (res.status >= 400) return failureFromBody(res.body, raw);
  const body = (res.body ?? {}) as Record<string, unknown>;
  if ("total" in body) {
    const { data, page, limit, total, more } = body as {
      data: unknown;
      page: number;
      limit: number;
      total: number;
      more: boolean;
    };
    return { ok: true, data, page: { page, limit, total, more }, httpStatus: res.status, raw };
  }
  return { ok: true, data: body.data, httpStatus: res.status, raw };
}

export function restDriver(world: World): Driver {
  const app: Express = world.express;
  const auth = (as: Actor, req: request.Test): request.Test =>
    as === "anon" ? req : req.set("Authorization", `Bearer ${world.accounts[as].token}`);

  return {
    name: "rest",
    surface: "rest",
    async list(as, collection: Collection, args) {
      const query = toQueryString(args);
      return normalize(
        await auth(as, request(app).get(`/${collection}${query ? `?${query}` : ""}`)),
      );
    },
    async read(as, collection, id) {
      return normalize(await auth(as, request(app).get(`/${collection}/${id}`)));
    },
    async create(as, collection, body) {
      return normalize(await auth(as, request(app).post(`/${collection}`)).send(body));
    },
    async update(as, collection, id, body) {
      return normalize(await auth(as, request(app).patch(`/${collection}/${id}`)).send(body));
    },
    async delete(as, collection, id) {
      return normalize(await auth(as, request(app).delete(`/${collection}/${id}`)));
    },
    async close() {},
  };
}
