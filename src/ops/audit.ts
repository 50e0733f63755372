/**
 * Audit events: the core reports every write (done or refused) to the RequestContext's
 * observer; the observer TerrenoApp builds here turns each record into an AuditEvent and
 * hands it to the app's sinks (`onAudit`, and plugins such as `auditToMongo`). A sink that
 * throws or rejects is logged and never fails the request.
 */
import type { ErrorCode } from "../core/errors.js";
import type { Logger } from "../core/logger.js";
import type { OperationObserver, WriteRecord } from "../core/observe.js";
import type { RequestContext, Surface } from "../core/types.js";
import type { ChangeLog } from "./changeLog.js";

export interface AuditEvent {
  /** When the write finished (or was refused). */
  timestamp: Date;
  /** The caller's user id; absent for an anonymous caller. */
  userId?: string;
  /** The personal access token the caller used, when the caller object carries `tokenId`. */
  tokenId?: string;
  /** The workspace the write acted in (a workspace-scoped model's, or one the call resolved). */
  workspaceId?: string;
  /** Which surface the write came through. */
  surface: Surface;
  /** The route or tool, e.g. `PATCH /todos/:id` or `todos_update`. */
  operation: string;
  /** `create`, `update`, `delete` (or an action's name). */
  action: string;
  /** The Mongoose model name, e.g. `Todo`. */
  model: string;
  /** The document's id, when known (always after a successful create). */
  documentId?: string;
  /** `"success"`, or the error code the write was refused with (`not_found`, `forbidden`, ...). */
  outcome: "success" | ErrorCode;
  /** Names of the fields the write set (dotted for nested paths). Never values; empty for deletes. */
  fields: string[];
}

/** Receives audit events; may be async. Throwing or rejecting is logged, never fatal. */
export type AuditSink = (event: AuditEvent) => void | Promise<void>;

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/** The audit event for one write record, read with the context it happened in. */
export function auditEventOf(
  record: WriteRecord,
  ctx: RequestContext,
  timestamp = new Date(),
): AuditEvent {
  const userId = stringOrUndefined(ctx.user?.id);
  const tokenId = stringOrUndefined(ctx.user?.tokenId);
  const workspaceId = ctx.workspace?.settled()?.id;
  return {
    timestamp,
    ...(userId ? { userId } : {}),
    ...(tokenId ? { tokenId } : {}),
    ...(workspaceId ? { workspaceId } : {}),
    surface: ctx.transport,
    operation: ctx.operation ?? `${record.action} ${record.model}`,
    action: record.action,
    model: record.model,
    ...(record.documentId ? { documentId: record.documentId } : {}),
    outcome: record.outcome,
    fields: [...record.fields],
  };
}

/**
 * The app's one write observer, which adapters put in the RequestContext: each sink gets its
 * own copy of the event (a sink may add `_id` or otherwise change it), all sinks run
 * concurrently, and the change log (when `changes` is on) stores the change with its values.
 * Returns undefined when there is neither, so the core skips the work entirely.
 */
export function auditObserver(
  sinks: readonly AuditSink[],
  logger: Logger,
  changes?: ChangeLog,
): OperationObserver | undefined {
  if (sinks.length === 0 && !changes) return undefined;
  return {
    async write(record, ctx) {
      const event = auditEventOf(record, ctx);
      const recorded = changes?.record(record, ctx).catch((error: unknown) => {
        logger.error(
          { err: error, surface: event.surface, operation: event.operation, model: event.model },
          "terreno-mcp: storing a change record failed; the request went on",
        );
      });
      await Promise.all([
        recorded,
        ...sinks.map(async (sink) => {
          try {
            await sink({
              ...event,
              timestamp: new Date(event.timestamp),
              fields: [...event.fields],
            });
          } catch (error) {
            logger.error(
              {
                err: error,
                surface: event.surface,
                operation: event.operation,
                model: event.model,
                outcome: event.outcome,
              },
              "terreno-mcp: audit sink failed; the request went on",
            );
          }
        }),
      ]);
    },
  };
}
