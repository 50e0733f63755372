/**
 * A write at one version, conditional in the database itself, never a read-then-write:
 *
 * 1. load the record; refuse at once when the caller's precondition names another version;
 * 2. claim `(record, version)` by a unique insert (`AppServices.versionClaims`): of any number
 *    of writers, on any connection or instance, one holds it at a time;
 * 3. write with the version in the filter (`{_id, __v: v}`) and `$inc` it (Mongoose's
 *    `$where` and `increment()`, on `save` and `deleteOne`); release the claim.
 *
 * A filter that matched nothing (someone changed the record in between) or a claim held by
 * another writer sends the caller back to 1: one that named a version then gets its refusal,
 * with the record as it is now; one that did not writes on the new version, as before.
 *
 * What is exact where: the compare-and-set alone is exact on MongoDB. FerretDB 1.x does not
 * isolate concurrent updates over different connections (../shared/notes/stack-facts.md); the
 * claim, a unique insert, is atomic there too, so with `versionClaims` (every TerrenoApp) the
 * write is exact on both, across instances. Writes the app makes itself, outside the
 * framework, take no claim.
 */
import { setTimeout as sleep } from "node:timers/promises";
import mongoose from "mongoose";
import { notFound, TerrenoError } from "./errors.js";
import type { Resource } from "./resource.js";
import { respond } from "./respond.js";
import type { RequestContext, StoredDocument } from "./types.js";
import { etagOf, type Precondition, VERSION_FIELD, versionKey, versionOf } from "./versions.js";
import type { SurfaceView } from "./viewTypes.js";

/** What a write returns when its conditional filter matched nothing. */
export const STALE: unique symbol = Symbol("terreno-mcp.staleVersion");

/** How long a writer keeps finding its version claimed or moved before it gives up (409). */
const CONTENTION_MS = 15_000;

/** The refusal of a write whose precondition no longer holds, carrying the record as it is now. */
async function staleVersion(
  resource: Resource,
  view: SurfaceView,
  ctx: RequestContext,
  doc: StoredDocument,
  precondition: Precondition,
): Promise<TerrenoError> {
  const version = versionOf(resource, doc) ?? 0;
  const data = await respond(resource, view, ctx, "read", doc);
  const header = precondition.from === "if-match";
  const sent = precondition.versions.join(" or ");
  return new TerrenoError(
    header ? "precondition_failed" : "conflict",
    `The ${resource.model.modelName} changed since version ${sent}: it is at version ${version} ` +
      `now (in \`current\`). Nothing was written. Merge your change into it and send it again ` +
      `with ${VERSION_FIELD} ${version}.`,
    undefined,
    { current: { version, data }, ...(header ? { headers: { ETag: etagOf(version) } } : {}) },
  );
}

/** The 428 for a write without a precondition on a router with `requireVersion: true`. */
function versionRequired(resource: Resource, view: SurfaceView): TerrenoError {
  const how =
    view.surface === "rest"
      ? `send If-Match with the ETag a read returned, or \`${VERSION_FIELD}\` in the body`
      : `send the \`${VERSION_FIELD}\` a read returned`;
  return new TerrenoError(
    "precondition_required",
    `Writes to ${resource.model.modelName} must say which version they change: ${how}.`,
  );
}

/** Whether a save or delete found no record at the version in its filter. */
export function isStaleWrite(error: unknown): boolean {
  return (
    error instanceof mongoose.Error.VersionError ||
    error instanceof mongoose.Error.DocumentNotFoundError
  );
}

/**
 * Makes the next `save()` or `deleteOne()` of `doc` conditional on its stored version, and a
 * save that changes something increment it. Returns the undo, for after the write (a later save by a hook is the app's).
 */
export function conditionOn(resource: Resource, doc: StoredDocument): () => void {
  const key = versionKey(resource);
  if (key === undefined) return () => {};
  const stored: unknown = doc.get(key);
  // A record stored without a version matches `null`, and the increment gives it 1.
  doc.$where = { [key]: stored ?? null };
  // A save that changes nothing writes nothing (Mongoose only checks the record is there), so
  // its version stays; incrementing would change the version in memory alone.
  if (doc.isModified()) doc.increment();
  return () => {
    doc.$where = {};
  };
}

/**
 * Runs `write` on the record `load` returns, at its version, as the header comment says.
 * `write` returns STALE when its conditional filter matched nothing.
 */
export async function writeAtVersion<T>(
  resource: Resource,
  view: SurfaceView,
  ctx: RequestContext,
  preconditions: readonly Precondition[],
  load: () => Promise<StoredDocument>,
  write: (doc: StoredDocument) => Promise<T | typeof STALE>,
): Promise<T> {
  if (versionKey(resource) === undefined) {
    // Without versions only a record deleted meanwhile fails the write's filter.
    const result = await write(await load());
    if (result === STALE) throw notFound(`The ${resource.model.modelName} was deleted meanwhile.`);
    return result;
  }
  if (preconditions.length === 0 && resource.options.requireVersion) {
    throw versionRequired(resource, view);
  }
  const claims = ctx.services.versionClaims;
  const connection = resource.model.db;
  const deadline = Date.now() + CONTENTION_MS;
  for (let attempt = 1; ; attempt++) {
    const doc = await load();
    const version = versionOf(resource, doc) ?? 0;
    const refused = preconditions.find((p) => !p.versions.includes(version));
    if (refused) throw await staleVersion(resource, view, ctx, doc, refused);
    const record = `${resource.model.collection.collectionName}/${String(doc._id)}`;
    if (!claims || (await claims.claim(connection, record, version))) {
      try {
        const result = await write(doc);
        if (result !== STALE) return result;
      } finally {
        await claims?.release(connection, record, version);
      }
    }
    if (Date.now() > deadline) {
      throw new TerrenoError(
        "conflict",
        `The ${resource.model.modelName} is being changed by others; nothing was written. Try again.`,
      );
    }
    // Another writer holds this version: wait for its write, then look again.
    await sleep(5 + Math.floor(Math.random() * 10 * Math.min(attempt, 10)));
  }
}
