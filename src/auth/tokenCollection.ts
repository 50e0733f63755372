/**
 * Registers a token model (refresh tokens, personal access tokens) on the user model's
 * connection and builds its indexes itself, once per connection and database: a TTL index
 * where the database has them, a plain one where it refuses TTL (FerretDB v1, code 238),
 * which Mongoose's own index build would turn into a failed `Model.init()`. Also what the token
 * stores share: their schema's options, the hash they store, the user ids they revoke by.
 */
import { createHash } from "node:crypto";
import mongoose, { type Connection, Schema, type SchemaDefinition, type Types } from "mongoose";
import type { AnyModel } from "../core/types.js";

/**
 * A token collection's schema: `createdAt` only, no version key, and `autoIndex: false`, since
 * ensureTokenIndexes() builds the indexes instead (Mongoose's own build would reject
 * `Model.init()` on a database that refuses TTL indexes). MongoDB deletes a record once its
 * `expiresAt` has passed; expiry is also checked on every read, because the TTL monitor runs only
 * once a minute (and FerretDB v1 has no TTL indexes at all).
 */
export function tokenSchema(definition: SchemaDefinition, collection: string): Schema {
  const schema = new Schema(definition, {
    collection,
    timestamps: { createdAt: true, updatedAt: false },
    versionKey: false,
    autoIndex: false,
  });
  schema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });
  return schema;
}

/** SHA-256 (hex) of a token: what a token collection stores instead of the token. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** One user id or several, as a list without the ones that are not valid ObjectIds. */
export function validUserIds(
  userId: string | Types.ObjectId | ReadonlyArray<string | Types.ObjectId>,
): Array<string | Types.ObjectId> {
  return (Array.isArray(userId) ? userId : [userId]).filter((id) => mongoose.isValidObjectId(id));
}

const builds = new WeakMap<Connection, Map<string, { database: string; build: Promise<void> }>>();

function isNotImplemented(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 238;
}

async function buildIndexes(connection: Connection, model: AnyModel, schema: Schema) {
  if (connection.readyState !== 1) {
    await new Promise((resolve) => connection.once("connected", resolve));
  }
  for (const [fields, { _autoIndex, ...options }] of schema.indexes() as Array<
    [Record<string, 1 | -1>, Record<string, unknown>]
  >) {
    try {
      await model.collection.createIndex(fields, options);
    } catch (error) {
      if (options.expireAfterSeconds === undefined || !isNotImplemented(error)) throw error;
      const { expireAfterSeconds, ...plain } = options;
      await model.collection.createIndex(fields, plain);
    }
  }
}

/** Builds `name`'s indexes on `connection`; the same promise for the same database. */
export function ensureTokenIndexes(
  connection: Connection,
  name: string,
  schema: Schema,
): Promise<void> {
  const model = tokenModel(connection, name, schema, false);
  let byName = builds.get(connection);
  if (!byName) {
    byName = new Map();
    builds.set(connection, byName);
  }
  const previous = byName.get(name);
  if (previous && previous.database === connection.name) return previous.build;
  const build = buildIndexes(connection, model, schema);
  byName.set(name, { database: connection.name, build });
  build.catch(() => {
    if (byName.get(name)?.build === build) byName.delete(name);
  });
  return build;
}

/**
 * The model `name` on `connection`, registered on first use; registering starts its index
 * build unless the connection or Mongoose has `autoIndex: false`.
 */
export function tokenModel(
  connection: Connection,
  name: string,
  schema: Schema,
  buildIndexesNow = true,
): AnyModel {
  // Typed loosely on purpose: records are read with `lean<…>()`.
  const existing: AnyModel | undefined = connection.models[name];
  if (existing) return existing;
  const model = connection.model(name, schema);
  const autoIndex = connection.get("autoIndex") ?? connection.base.get("autoIndex") ?? true;
  if (buildIndexesNow && autoIndex !== false) {
    ensureTokenIndexes(connection, name, schema).catch((error: unknown) => {
      process.emitWarning(
        `terreno-mcp: could not build the ${model.collection.collectionName} indexes: ${String(error)}`,
      );
    });
  }
  return model;
}
