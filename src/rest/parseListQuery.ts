/**
 * Reads list parameters from the raw query string with a bounded `qs` parse, so operator
 * syntax (`calories[$gt]=100`) works whatever query parser the host app configured.
 * `$or`/`$and` use indexed brackets: `$or[0][title]=a&$or[1][priority][$gte]=3`, and two
 * levels deep `$or[1][$and][0][priority][$gte]=3` (the deepest valid key has 6 segments, with
 * `[$in][]`; anything deeper stays an unparsed key the core refuses).
 */
import type { Request } from "express";
import qs from "qs";
import type { ListInput } from "../core/operations/list.js";
import type { PlainObject } from "../core/types.js";

const RESERVED = new Set(["page", "limit", "sort", "populate"]);

export function parseListQuery(req: Request): ListInput {
  const queryString = req.originalUrl.split("?")[1] ?? "";
  const parsed = qs.parse(queryString, {
    // $or[i][$and][j][field][$in][] is the deepest filter the core accepts.
    depth: 6,
    arrayLimit: 100,
    parameterLimit: 200,
    allowPrototypes: false,
    plainObjects: true,
  }) as PlainObject;
  const filter: PlainObject = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!RESERVED.has(key)) filter[key] = value;
  }
  // qs drops `__proto__` keys without a word; hand one to the core, which refuses prototype
  // keys (a 400) instead of running the query as if the key had not been sent.
  for (const key of new URLSearchParams(queryString).keys()) {
    if (/(^|\[)__proto__(\[|\]|$)/.test(key)) {
      Object.defineProperty(filter, "__proto__", { value: true, enumerable: true });
      break;
    }
  }
  return {
    filter,
    page: parsed.page,
    limit: parsed.limit,
    sort: parsed.sort,
    populate: parsed.populate,
  };
}
