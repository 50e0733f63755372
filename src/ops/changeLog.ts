/**
 * Change records (`changes: true` on TerrenoApp, docs/safe-writes.md): every successful create,
 * update, delete and action of a model's record, through any surface, stored in MongoDB with
 * who, when, where, the record, its changed paths (values before and after) and its version
 * after the write. They come from the app's one write observer (src/ops/audit.ts), beside the
 * audit sinks.
 *
 * Hidden fields are recorded (their values kept for undo) and never served: `served()` leaves
 * only `{path, hidden: true}`. A deleted record's whole stored document is kept in `restore`
 * (never served) so undo can put it back with its id and hidden fields.
 *
 * Retention: FerretDB has no TTL indexes, so the app sweeps records older than
 * `retentionDays` itself, at most once per SWEEP_INTERVAL_MS per process, in bounded batches.
 */
import { isDeepStrictEqual } from "node:util";
import mongoose, { type Connection, Schema } from "mongoose";
import type { Logger } from "../core/logger.js";
import type { Resource } from "../core/resource.js";
import type { PlainObject, RequestContext, WriteRecord } from "../core/types.js";
import { versionKeyOf } from "../schema/mongooseInternals.js";

const COLLECTION = "terreno_changes";
const MODEL_NAME = "TerrenoChange";
const DEFAULT_RETENTION_DAYS = 90;
const SWEEP_INTERVAL_MS = 10 * 60_000;
/** The most records one sweep deletes; the next sweep takes the rest. */
const SWEEP_BATCH = 1000;

/** `changes: true`, or its retention. */
export interface ChangesOptions {
  /** Days a change record is kept. Default 90. */
  retentionDays?: number;
}

/** One changed path of a record: its value before and after (absent when it had none). */
interface ChangedPath {
  path: string;
  before?: unknown;
  after?: unknown;
  /** A hidden field: recorded for undo, never served. */
  hidden?: true;
}

/** A change record as stored. */
export interface StoredChange {
  _id: mongoose.Types.ObjectId;
  timestamp: Date;
  userId?: string;
  tokenId?: string;
  authMethod?: string;
  workspaceId?: string;
  surface: string;
  operation: string;
  action: string;
  model: string;
  documentId: string;
  version?: number;
  changes: ChangedPath[];
  /** A deleted record as stored, for undo. Never served. */
  restore?: PlainObject;
}

export interface ChangeLog {
  /** The stored records (on the app's connection). */
  model(): mongoose.Model<StoredChange>;
  /** Stores the change a successful write made; called by the app's write observer. */
  record(record: WriteRecord, ctx: RequestContext): Promise<void>;
  /** Deletes records older than the retention, one bounded batch; returns how many. */
  sweep(): Promise<number>;
}

function changeSchema(): Schema {
  const schema = new Schema(
    {
      timestamp: { type: Date, required: true },
      userId: String,
      tokenId: String,
      authMethod: String,
      workspaceId: String,
      surface: { type: String, required: true },
      operation: { type: String, required: true },
      action: { type: String, required: true },
      model: { type: String, required: true },
      documentId: { type: String, required: true },
      version: Number,
      changes: { type: [Schema.Types.Mixed], default: [] },
      restore: Schema.Types.Mixed,
    },
    { collection: COLLECTION, versionKey: false, minimize: false },
  );
  schema.index({ timestamp: -1 });
  schema.index({ documentId: 1, timestamp: -1 });
  return schema;
}

/** The app's resource for a model name (the first router of it). */
export function resourceNamed(ctx: RequestContext, model: string): Resource | undefined {
  return (ctx.services.resources as readonly Resource[]).find(
    (resource) => resource.model.modelName === model,
  );
}

/** Whether `path` is hidden on any surface of the resource. */
function hiddenAnywhere(resource: Resource | undefined, path: string): boolean {
  if (!resource) return false;
  return Object.values(resource.views).some((view) => view.hidden.isHidden(path));
}

/** Paths the framework keeps itself: never part of a change, never set back by undo. */
function bookkeeping(resource: Resource | undefined): Set<string> {
  const skip = new Set(["_id", "__v", "createdAt", "updatedAt"]);
  if (!resource) return skip;
  const { schema } = resource.model;
  const key = versionKeyOf(schema);
  if (key) skip.add(key);
  const timestamps = schema.get("timestamps") as unknown;
  if (typeof timestamps === "object" && timestamps !== null) {
    const named = timestamps as { createdAt?: unknown; updatedAt?: unknown };
    if (typeof named.createdAt === "string") skip.add(named.createdAt);
    if (typeof named.updatedAt === "string") skip.add(named.updatedAt);
  }
  return skip;
}

/** The top-level paths whose stored values differ before and after a write. */
function changedPaths(
  resource: Resource | undefined,
  before: PlainObject | undefined,
  after: PlainObject | undefined,
): ChangedPath[] {
  const skip = bookkeeping(resource);
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  const changes: ChangedPath[] = [];
  for (const path of keys) {
    if (skip.has(path)) continue;
    const was = before?.[path];
    const is = after?.[path];
    if (isDeepStrictEqual(was, is)) continue;
    changes.push({
      path,
      ...(was === undefined ? {} : { before: was }),
      ...(is === undefined ? {} : { after: is }),
      ...(hiddenAnywhere(resource, path) ? { hidden: true as const } : {}),
    });
  }
  return changes;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/** JSON as a client sees it (ObjectIds and Dates as strings). */
function json(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/** A change record as served: hidden values and the restore copy never leave. */
export function served(change: StoredChange): PlainObject {
  return {
    id: String(change._id),
    timestamp: change.timestamp.toISOString(),
    ...(change.userId ? { userId: change.userId } : {}),
    ...(change.tokenId ? { tokenId: change.tokenId } : {}),
    ...(change.authMethod ? { authMethod: change.authMethod } : {}),
    ...(change.workspaceId ? { workspaceId: change.workspaceId } : {}),
    surface: change.surface,
    operation: change.operation,
    action: change.action,
    model: change.model,
    record: change.documentId,
    ...(typeof change.version === "number" ? { version: change.version } : {}),
    changes: change.changes.map((entry) =>
      entry.hidden
        ? { path: entry.path, hidden: true }
        : {
            path: entry.path,
            ...(entry.before === undefined ? {} : { before: json(entry.before) }),
            ...(entry.after === undefined ? {} : { after: json(entry.after) }),
          },
    ),
  };
}

/** The change log on the app's connection (`connection` is read when first needed). */
export function changeLog(
  connection: () => Connection,
  options: ChangesOptions,
  logger: () => Logger,
): ChangeLog {
  const retentionDays = options.retentionDays ?? DEFAULT_RETENTION_DAYS;
  if (!(Number.isFinite(retentionDays) && retentionDays > 0)) {
    throw new Error("TerrenoApp: changes.retentionDays must be a positive number of days.");
  }
  const model = (): mongoose.Model<StoredChange> => {
    const on = connection();
    return (on.models[MODEL_NAME] ??
      on.model(MODEL_NAME, changeSchema())) as mongoose.Model<StoredChange>;
  };
  let lastSweep = 0;
  const sweep = async (): Promise<number> => {
    const cutoff = new Date(Date.now() - retentionDays * 86_400_000);
    const old = await model()
      .find({ timestamp: { $lt: cutoff } }, { _id: 1 })
      .limit(SWEEP_BATCH)
      .lean()
      .exec();
    if (old.length === 0) return 0;
    const result = await model()
      .deleteMany({ _id: { $in: old.map((row) => row._id) } })
      .exec();
    return result.deletedCount ?? 0;
  };
  return {
    model,
    sweep,
    async record(record, ctx) {
      const { snapshot } = record;
      if (record.outcome !== "success" || !record.documentId) return;
      const resource = resourceNamed(ctx, record.model);
      // A delete keeps the record as stored (soft or hard) for its undo.
      const deleted = record.action === "delete" && snapshot?.before !== undefined;
      const userId = text(ctx.user?.id);
      const tokenId = text(ctx.user?.tokenId);
      const authMethod = text(ctx.user?.authMethod);
      const workspaceId = ctx.workspace?.settled()?.id;
      await model().create({
        timestamp: new Date(),
        ...(userId ? { userId } : {}),
        ...(tokenId ? { tokenId } : {}),
        ...(authMethod ? { authMethod } : {}),
        ...(workspaceId ? { workspaceId } : {}),
        surface: ctx.transport,
        operation: ctx.operation ?? `${record.action} ${record.model}`,
        action: record.action,
        model: record.model,
        documentId: record.documentId,
        ...(typeof snapshot?.version === "number" ? { version: snapshot.version } : {}),
        changes: snapshot ? changedPaths(resource, snapshot.before, snapshot.after) : [],
        ...(deleted ? { restore: snapshot?.before } : {}),
      });
      if (Date.now() - lastSweep < SWEEP_INTERVAL_MS) return;
      lastSweep = Date.now();
      // Retention work never delays or fails the write that was recorded.
      sweep().catch((error: unknown) => {
        logger().error({ err: error }, "terreno-mcp: sweeping change records failed");
      });
    },
  };
}
