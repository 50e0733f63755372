/**
 * `auditToMongo()`: a TerrenoApp plugin that stores every audit event in a MongoDB collection
 * kept for `ttlDays`, and serves them at an admin-only `GET /audit` (list and read only, made
 * with this framework's own modelRouter, the app's `ctx.modelRouter`, never offered as MCP or
 * AI tools).
 *
 * Retention: a TTL index on `timestamp` where the database has them (MongoDB). Where creating
 * one is refused (FerretDB 1.x answers NotImplemented), the plugin prunes expired events
 * itself: on the first event, then at most once per `pruneIntervalMinutes`, from any instance.
 */
import type { Express } from "express";
import mongoose, { type Connection, Schema } from "mongoose";
import { consoleLogger, type Logger } from "../core/logger.js";
import { normalizeError } from "../core/normalizeError.js";
import { IsAdmin } from "../core/permissions.js";
import type { AnyModel, PermissionMethod } from "../core/types.js";
import type { TerrenoPlugin } from "../plugin/types.js";
import type { AuditEvent, AuditSink } from "./audit.js";

const DEFAULT_AUDIT_COLLECTION = "terreno_audit_events";
const DEFAULT_AUDIT_TTL_DAYS = 90;

export interface AuditToMongoOptions {
  /**
   * Days an event is kept: a TTL index on `timestamp` lets MongoDB delete older events.
   * Default 90. MongoDB refuses to change an existing TTL index's expiry through index
   * creation; change it with `collMod` (see docs/rate-limits-and-audit.md).
   */
  ttlDays?: number;
  /** Without a TTL index: how often expired events are deleted. Default 10 minutes. */
  pruneIntervalMinutes?: number;
  /** Default `terreno_audit_events`. */
  collection?: string;
  /** Where the list is served; `false` serves none. Default `/audit`. */
  path?: string | false;
  /** Who may list and read events. Default `[IsAdmin]`. */
  permissions?: PermissionMethod[];
  /**
   * The connection to store on. Default: the app's connection (`TerrenoApp.connection`, where
   * its models live), bound when the plugin is registered.
   */
  connection?: Connection;
}

/** How expired events leave: MongoDB's TTL monitor, or the plugin's own deletes. */
type AuditRetention = "ttl-index" | "pruning";

export interface AuditToMongoPlugin extends TerrenoPlugin {
  onAudit: AuditSink;
  /** The Mongoose model of stored events, for queries and exports of your own. */
  model: AnyModel;
  /** Creates the TTL index (once) and says which retention is in force. */
  retention(): Promise<AuditRetention>;
  /** Deletes events older than `ttlDays` now; returns how many. Safe from any instance. */
  prune(): Promise<number>;
}

const AUDIT_TTL_INDEX = "terreno_audit_ttl";

const SURFACES = ["rest", "mcp", "ai", "internal"];

/** Fields the list may filter on (`GET /audit?userId=...&outcome=not_found`). */
export const AUDIT_QUERY_FIELDS = [
  "userId",
  "tokenId",
  "workspaceId",
  "surface",
  "operation",
  "action",
  "model",
  "documentId",
  "outcome",
  "timestamp",
];

function auditSchema(collection: string): Schema {
  const schema = new Schema(
    {
      timestamp: { type: Date, required: true },
      userId: { type: String },
      tokenId: { type: String },
      workspaceId: { type: String },
      surface: { type: String, required: true, enum: SURFACES },
      operation: { type: String, required: true },
      action: { type: String, required: true },
      model: { type: String, required: true },
      documentId: { type: String },
      outcome: { type: String, required: true },
      fields: { type: [String], default: undefined },
    },
    { collection, versionKey: false },
  );
  // The TTL index is created by the plugin (see retention()), not declared here: a database
  // without TTL indexes would otherwise fail Mongoose's index build for the whole model.
  schema.index({ timestamp: -1 });
  return schema;
}

function modelName(collection: string): string {
  return collection === DEFAULT_AUDIT_COLLECTION
    ? "TerrenoAuditEvent"
    : `TerrenoAuditEvent_${collection}`;
}

/**
 * Stores audit events in MongoDB and serves them to admins:
 *
 * ```ts
 * app.register(auditToMongo({ ttlDays: 30 }));
 * // GET /audit?model=Todo&outcome=not_found (newest first, admins only)
 * ```
 *
 * One model per collection and connection: a second call for the same collection reuses the
 * first call's model (and its TTL).
 */
export function auditToMongo(options: AuditToMongoOptions = {}): AuditToMongoPlugin {
  const ttlDays = options.ttlDays ?? DEFAULT_AUDIT_TTL_DAYS;
  if (!(Number.isFinite(ttlDays) && ttlDays > 0)) {
    throw new Error("auditToMongo: ttlDays must be a positive number of days.");
  }
  const collection = options.collection ?? DEFAULT_AUDIT_COLLECTION;
  const name = modelName(collection);
  const modelOn = (connection: Connection): AnyModel =>
    connection.models[name] ?? connection.model(name, auditSchema(collection));
  // Bound to the app's connection by register(); until then (or without an app), the given
  // connection or the default one of the app's mongoose.
  let bound: AnyModel | undefined = options.connection ? modelOn(options.connection) : undefined;
  const model = (): AnyModel => bound ?? modelOn(mongoose.connection);
  const path = options.path ?? "/audit";
  const permissions = options.permissions ?? [IsAdmin];
  const ttlSeconds = Math.round(ttlDays * 86_400);
  const pruneEveryMs = (options.pruneIntervalMinutes ?? 10) * 60_000;
  let logger: Logger = consoleLogger;
  let retention: Promise<AuditRetention> | undefined;
  let lastPrune = 0;

  const prune = async (): Promise<number> => {
    const cutoff = new Date(Date.now() - ttlSeconds * 1000);
    const result = await model()
      .deleteMany({ timestamp: { $lt: cutoff } })
      .exec();
    return result.deletedCount ?? 0;
  };

  const ensureRetention = (): Promise<AuditRetention> => {
    retention ??= model()
      .collection.createIndex(
        { timestamp: 1 },
        { name: AUDIT_TTL_INDEX, expireAfterSeconds: ttlSeconds },
      )
      .then(
        (): AuditRetention => "ttl-index",
        (error: { code?: unknown; codeName?: unknown }): AuditRetention => {
          // A lost connection is retried on the next event; a refusal is final for this process.
          if (normalizeError(error).code === "database_unavailable") {
            retention = undefined;
            throw error;
          }
          logger.warn(
            { err: error, collection },
            "terreno-mcp: the database refused a TTL index; expired audit events are pruned by the app",
          );
          return "pruning";
        },
      );
    return retention;
  };

  const pruneIfDue = async (): Promise<void> => {
    if ((await ensureRetention()) !== "pruning") return;
    if (Date.now() - lastPrune < pruneEveryMs) return;
    lastPrune = Date.now();
    await prune();
  };

  return {
    name: "audit-mongo",
    get model() {
      return model();
    },
    retention: ensureRetention,
    prune,
    onAudit: async (event: AuditEvent) => {
      await model().create(event);
      // Retention work never delays or fails the request that wrote the event.
      pruneIfDue().catch((error: unknown) => {
        logger.error({ err: error, collection }, "terreno-mcp: pruning audit events failed");
      });
    },
    register(app: Express, ctx) {
      logger = ctx.logger;
      bound ??= modelOn(ctx.connection);
      if (path === false) return;
      app.use(
        path,
        ctx.modelRouter(model(), {
          permissions: { list: permissions, read: permissions },
          queryFields: AUDIT_QUERY_FIELDS,
          sort: { timestamp: -1, _id: -1 },
          defaultLimit: 50,
          maxLimit: 500,
        }),
      );
    },
  };
}
