/**
 * What the core tells the outside world about a call, without knowing who listens: one
 * record per write (create, update, delete, and later actions), done or refused. Adapters
 * put an observer in the RequestContext (TerrenoApp's turns records into audit events, see
 * src/ops/audit.ts); the core never imports a transport or a telemetry SDK.
 */
import { isObjectIdString } from "../schema/fieldSchema.js";
import { normalizeError } from "./normalizeError.js";
import type { Resource } from "./resource.js";
import type {
  PlainObject,
  RequestContext,
  WriteOutcome,
  WriteRecord,
  WriteSnapshot,
} from "./types.js";

export type { OperationObserver, WriteRecord } from "./types.js";

/** A document as stored, as a plain object (populated paths back to ids), for a snapshot. */
export function storedObject(doc: { toObject(options?: object): unknown }): PlainObject {
  return doc.toObject({ depopulate: true, virtuals: false, getters: false }) as PlainObject;
}

/** Set by a write operation as it learns facts (the created document's id). */
export interface WriteTrace {
  documentId?: string;
  /** The record around the write, once it is done (change records; see WriteRecord.snapshot). */
  snapshot?: WriteSnapshot;
}

const MAX_FIELDS = 200;
const MAX_DEPTH = 16;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The schema paths a write body names: a key counts when the model has that path, and a
 * nested object is entered only where the schema describes its children (so the keys of a
 * Map or Mixed field, which are data, are never listed). Dotted keys count as written.
 */
function changedFields(resource: Resource, body: unknown): string[] {
  if (!isPlainObject(body)) return [];
  const { byPath } = resource.description;
  const paths: string[] = [];
  const walk = (object: Record<string, unknown>, prefix: string, depth: number): void => {
    for (const key of Object.keys(object)) {
      if (paths.length >= MAX_FIELDS) return;
      const path = prefix ? `${prefix}.${key}` : key;
      const field = byPath.get(path);
      if (!field) continue;
      paths.push(path);
      const value = object[key];
      if (field.properties && isPlainObject(value) && depth < MAX_DEPTH) {
        walk(value, path, depth + 1);
      }
    }
  };
  walk(body, "", 0);
  return paths;
}

function knownId(id: unknown): string | undefined {
  return isObjectIdString(id) ? id : undefined;
}

/**
 * What a write is reported against when it is not one model's (a custom tool): the `model`
 * its records carry, and the fields a body names.
 */
export interface WriteTarget {
  model: string;
  fields(body: unknown): string[];
}

function targetOf(target: Resource | WriteTarget, action: WriteRecord["action"]): WriteTarget {
  if (typeof target.model === "string") return target as WriteTarget;
  const resource = target as Resource;
  return {
    model: resource.model.modelName,
    fields: (body) => (action === "delete" ? [] : changedFields(resource, body)),
  };
}

/**
 * Runs a write and reports it to `ctx.observer`, whatever its outcome. The original error is
 * rethrown unchanged; an observer that throws anyway is ignored here (observers log their own
 * failures), so telling never changes the answer. Every write is reported here: CRUD,
 * actions (a model's `resource`) and custom tools (a `WriteTarget`).
 */
export async function observeWrite<T>(
  resource: Resource | WriteTarget,
  ctx: RequestContext,
  action: WriteRecord["action"],
  known: { id?: unknown; body?: unknown },
  run: (trace: WriteTrace) => Promise<T>,
): Promise<T> {
  const { observer } = ctx.services;
  const trace: WriteTrace = { documentId: knownId(known.id) };
  if (!observer) return run(trace);
  let outcome: WriteOutcome = "success";
  try {
    return await run(trace);
  } catch (error) {
    outcome = normalizeError(error).code;
    throw error;
  } finally {
    const target = targetOf(resource, action);
    const record: WriteRecord = {
      action,
      model: target.model,
      ...(trace.documentId ? { documentId: trace.documentId } : {}),
      fields: target.fields(known.body),
      outcome,
      ...(outcome === "success" && trace.snapshot ? { snapshot: trace.snapshot } : {}),
    };
    try {
      await observer.write(record, ctx);
    } catch {
      // Observers report their own failures; the write's answer stands.
    }
  }
}

/**
 * Reports a write an adapter refused before it reached its operation (a tool's argument
 * check), so every write attempt is told once, whichever step refused it.
 */
export async function observeRefusal(
  resource: Resource | WriteTarget,
  ctx: RequestContext,
  action: WriteRecord["action"],
  known: { id?: unknown; body?: unknown },
  error: unknown,
): Promise<void> {
  await observeWrite(resource, ctx, action, known, () => Promise.reject(error)).catch(() => {});
}
