/**
 * The list of change records a caller may read, shared by `GET /changes` (changeRoutes.ts) and
 * the `changes_list` tool (`mcp: {changes: true}`): admins see every change; anyone else only
 * the changes they made themselves. Newest first; hidden values never leave (`served`).
 */
import { unauthenticated } from "../core/errors.js";
import type { PlainObject, RequestContext } from "../core/types.js";
import { type ChangeLog, type StoredChange, served } from "./changeLog.js";

/** The filters of a list: a record's id, a model, a personal token's id, a surface, a time. */
export interface ChangeQuery {
  record?: string;
  model?: string;
  client?: string;
  surface?: string;
  since?: Date;
  until?: Date;
  limit: number;
  offset: number;
}

/** The caller's readable changes matching `query`, as served. */
export async function listChanges(
  log: ChangeLog,
  ctx: RequestContext,
  query: ChangeQuery,
): Promise<{ data: PlainObject[]; limit: number; offset: number }> {
  const user = ctx.user;
  if (!user?.id) throw unauthenticated();
  const filter: PlainObject = user.admin === true ? {} : { userId: user.id };
  const fields = { record: "documentId", model: "model", client: "tokenId", surface: "surface" };
  for (const [key, field] of Object.entries(fields)) {
    const value = query[key as keyof typeof fields];
    if (value !== undefined) filter[field] = value;
  }
  const { since, until, limit, offset } = query;
  if (since || until) {
    filter.timestamp = { ...(since ? { $gte: since } : {}), ...(until ? { $lte: until } : {}) };
  }
  const rows = await log
    .model()
    .find(filter)
    .sort({ timestamp: -1, _id: -1 })
    .skip(offset)
    .limit(limit)
    .lean<StoredChange[]>()
    .exec();
  return { data: rows.map(served), limit, offset };
}
