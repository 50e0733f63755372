/** The REST driver: supertest against `app.build()`, HTTP status and JSON body normalized. */
import type { Express } from "express";
import qs from "qs";
import request from "supertest";
import { failureFromBody, type Outcome, successFromBody } from "../outcome.js";
import type { Actor, World } from "../world.js";
import type { Collection, Driver, ListArgs } from "./types.js";

/**
 * `$or`/`$and` branches are written with their index (`$or[0][title]=a`): qs's `[]` push form
 * would merge the branches into one. Lists of values keep the `[]` form. A value a query
 * string cannot carry (null, an empty list or object) throws, so that no case sends something
 * other than what it states.
 */
function indexBranches(value: unknown, path: string): unknown {
  if (value === null || (typeof value === "object" && Object.keys(value).length === 0)) {
    throw new Error(`${path} (${JSON.stringify(value)}) cannot be written in a query string`);
  }
  if (Array.isArray(value)) {
    const items = value.map((item, i) => indexBranches(item, `${path}.${i}`));
    return items.some((item) => typeof item === "object")
      ? Object.fromEntries(items.map((item, i) => [String(i), item]))
      : items;
  }
  if (typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, indexBranches(item, `${path}.${key}`)]),
    );
  }
  return value;
}

/**
 * The list arguments in the documented query-string syntax: `calories[$gt]=100`,
 * `title[$in][]=a&title[$in][]=b`, `$or[0][title]=a&$or[1][priority][$gte]=5`, plus `sort`,
 * `page` and `limit`.
 */
export function toQueryString(args: ListArgs = {}): string {
  const { filter = {}, ...paging } = args;
  return qs.stringify(
    {
      ...Object.fromEntries(
        Object.entries(filter).map(([key, value]) => [key, indexBranches(value, key)]),
      ),
      ...paging,
    },
    { encodeValuesOnly: true, arrayFormat: "brackets" },
  );
}

function normalize(res: request.Response): Outcome {
  const raw = res.text ?? "";
  if (res.status >= 400) return failureFromBody(res.body, raw);
  const body = (res.body ?? {}) as Record<string, unknown>;
  return { ...successFromBody(body, raw), httpStatus: res.status };
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
    async read(as, collection, id, options) {
      const populate = options?.populate ? `?populate=${options.populate.join(",")}` : "";
      return normalize(await auth(as, request(app).get(`/${collection}/${id}${populate}`)));
    },
    async create(as, collection, body) {
      return normalize(await auth(as, request(app).post(`/${collection}`)).send(body));
    },
    async update(as, collection, id, body) {
      return normalize(await auth(as, request(app).patch(`/${collection}/${id}`)).send(body));
    },
    async delete(as, collection, id, version) {
      const req = request(app).delete(`/${collection}/${id}`);
      if (version !== undefined) req.set("If-Match", `"${version}"`);
      return normalize(await auth(as, req));
    },
    async action(as, collection, name, id, input) {
      const path = id === undefined ? `/${collection}/${name}` : `/${collection}/${id}/${name}`;
      return normalize(await auth(as, request(app).post(path)).send(input));
    },
    async tool(as, name, input) {
      return normalize(await auth(as, request(app).post(`/tools/${name}`)).send(input));
    },
    async close() {},
  };
}
