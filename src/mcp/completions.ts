/**
 * `completion/complete` for a record template's `id`: the ids of the caller's own records
 * whose id starts with what was typed or whose title-like field contains it, most recent
 * first. It is an internal call of the list tool through the runner (recordResources.ts), and
 * runs the core list as the caller (`queryFilter`, soft delete, defaults), so it offers only
 * ids the caller's list tool would show; the match is a filter
 * the framework sets, on the id and on a field the tools see, never on a hidden one.
 */
import mongoose from "mongoose";
import { callerView } from "../core/callerView.js";
import { runList } from "../core/operations/list.js";
import type { Resource } from "../core/resource.js";
import type { PlainObject, RequestContext } from "../core/types.js";
import type { Completion } from "./resourceProviders.js";

/** At most this many values per answer (the protocol allows 100). */
const COMPLETION_LIMIT = 20;
/** What was typed is cut to this many characters before it is matched. */
const MAX_TYPED = 100;
const HEX_PREFIX = /^[0-9a-f]{1,24}$/i;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Ids that start with `prefix`: the ObjectId range it spans. */
function idRange(prefix: string): PlainObject {
  const lower = prefix.toLowerCase();
  return {
    _id: {
      $gte: new mongoose.Types.ObjectId(lower.padEnd(24, "0")),
      $lte: new mongoose.Types.ObjectId(lower.padEnd(24, "f")),
    },
  };
}

function matchFor(titleField: string | undefined, typed: string): PlainObject | null {
  if (typed === "") return {};
  const conditions: PlainObject[] = [];
  if (HEX_PREFIX.test(typed)) conditions.push(idRange(typed));
  if (titleField) {
    conditions.push({ [titleField]: { $regex: escapeRegex(typed), $options: "i" } });
  }
  if (conditions.length === 0) return null;
  return conditions.length === 1 ? conditions[0] : { $or: conditions };
}

export async function completeRecordId(
  resource: Resource,
  /** The field that names a record, when the tools see one. */
  titleField: string | undefined,
  value: string,
  /** The call's context: the runner made it and judged the list tool for it. */
  ctx: RequestContext,
): Promise<Completion> {
  const match = matchFor(titleField, value.slice(0, MAX_TYPED));
  if (!match) return { values: [], total: 0, hasMore: false };
  const view = await callerView(resource, ctx);
  const result = await runList(resource, view, ctx, {
    limit: Math.min(COMPLETION_LIMIT, view.maxLimit),
    ...(view.sortable.includes("id") ? { sort: "-id" } : {}),
    match,
  });
  const values = result.data.flatMap((record) => {
    const id = (record as PlainObject | null)?.id;
    return typeof id === "string" ? [id] : [];
  });
  return { values, total: result.total, hasMore: result.more };
}

/**
 * `completion/complete` of a prompt argument completed from a model's field: the distinct
 * values of `field` among the caller's records whose `field` contains what was typed (any
 * case), those that start with it first. Like `completeRecordId`, an internal call of the list
 * tool through the runner runs it, so it offers only what the caller's list tool would show;
 * the match is a filter the framework sets, on a field the tools see.
 */
export async function completeFieldValue(
  resource: Resource,
  field: string,
  value: string,
  ctx: RequestContext,
): Promise<Completion> {
  const typed = value.slice(0, MAX_TYPED);
  const view = await callerView(resource, ctx);
  const result = await runList(resource, view, ctx, {
    limit: Math.min(COMPLETION_LIMIT, view.maxLimit),
    ...(view.sortable.includes("id") ? { sort: "-id" } : {}),
    match: typed === "" ? {} : { [field]: { $regex: escapeRegex(typed), $options: "i" } },
  });
  const values = new Set<string>();
  for (const record of result.data) {
    const found = (record as PlainObject | null)?.[field];
    if (typeof found === "string" && found.length > 0) values.add(found);
  }
  const lower = typed.toLowerCase();
  const starts = (text: string) => (text.toLowerCase().startsWith(lower) ? 0 : 1);
  const sorted = [...values].sort((a, b) => starts(a) - starts(b));
  return { values: sorted, total: result.total, hasMore: result.more };
}
