/**
 * Every record a router serves has a version: the model's Mongoose version key (`__v` unless
 * the schema names another), which the framework increments on each of its writes (with
 * `optimisticConcurrency: true` Mongoose does the same on every save of the app's own). It
 * leaves every surface as `version` and, on REST, as the strong `ETag` `"<version>"`. A model
 * without one (`versionKey: false`, or a field of its own named `version`) has no version:
 * its writes are unconditional, as before (docs/safe-writes.md).
 */
import { versionKeyOf } from "../schema/mongooseInternals.js";
import { validationFailed } from "./errors.js";
import type { Resource } from "./resource.js";
import type { PlainObject, StoredDocument } from "./types.js";

/** The name a version has in tool output, REST bodies and tool input. */
export const VERSION_FIELD = "version";

/**
 * What a write expects of the record: one of `versions`. `from` says who asked: REST's
 * `If-Match` is answered 412 `precondition_failed`, a `version` in a body or a tool call 409
 * `conflict`.
 */
export interface Precondition {
  versions: readonly number[];
  from: "if-match" | "version";
}

/** The resource's version key in the database, or undefined when its records have none. */
export function versionKey(resource: Resource): string | undefined {
  const key = versionKeyOf(resource.model.schema);
  if (key === undefined) return undefined;
  // The app's own `version` field is its data: never overwritten by ours.
  if (key !== VERSION_FIELD && resource.description.fields[VERSION_FIELD]) return undefined;
  return key;
}

/** The record's version (0 for a record stored without one), or undefined when unversioned. */
export function versionOf(resource: Resource, doc: StoredDocument): number | undefined {
  const key = versionKey(resource);
  if (key === undefined) return undefined;
  // A lean result (a plain object) has no `get`.
  const value: unknown =
    typeof doc.get === "function" ? doc.get(key) : (doc as unknown as PlainObject)[key];
  return typeof value === "number" ? value : 0;
}

/** A document as presented, with its `version` beside its fields. */
export function withVersion(resource: Resource, doc: StoredDocument, presented: PlainObject) {
  const version = versionOf(resource, doc);
  return version === undefined ? presented : { ...presented, [VERSION_FIELD]: version };
}

/** The strong entity tag of a version (RFC 9110 §8.8.3). */
export function etagOf(version: number): string {
  return `"${version}"`;
}

/** A `version` as sent (a body's or a tool call's), checked. */
export function versionPrecondition(value: unknown): Precondition {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw validationFailed("Invalid input.", {
      [VERSION_FIELD]: "must be the version a read returned (an integer, 0 or more)",
    });
  }
  return { versions: [value], from: "version" };
}

function isPlainObject(value: unknown): value is PlainObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * An update body's `version` taken out as a precondition: a read sent back word for word is a
 * conditional update. A resource without versions leaves the body as it is.
 */
export function takeVersion(
  resource: Resource,
  body: unknown,
): { body: unknown; precondition?: Precondition } {
  if (!versionKey(resource) || !isPlainObject(body) || !(VERSION_FIELD in body)) return { body };
  const { [VERSION_FIELD]: version, ...rest } = body;
  return { body: rest, precondition: versionPrecondition(version) };
}
