/**
 * The normalized result of one operation on any surface, and the code ↔ status ↔ JSON-RPC
 * mapping (from ERROR_TABLE) that lets a case state an expected failure once, as a code.
 */
import { ERROR_TABLE, HTTP_STATUS_BY_CODE } from "../../src/core/errors.js";

interface PageInfo {
  page: number;
  limit: number;
  total: number;
  more: boolean;
}

export interface Ok {
  ok: true;
  /** The document (read/create/update), the page's documents (list), or the delete result. */
  data: unknown;
  /** list only. */
  page?: PageInfo;
  /** REST only: the HTTP status of the success. */
  httpStatus?: number;
  /** Everything the client received, as text: what leak checks search. */
  raw: string;
}

export interface Failure {
  ok: false;
  status: number;
  code: string;
  fields?: Record<string, string>;
  detail: string;
  /** A stale write's refusal: the record's version and the record as it is now. */
  version?: number;
  current?: Record<string, unknown>;
  raw: string;
}

/** Tool surfaces only: the method has no tool at all (a disabled or not opted-in method). */
export interface Absent {
  ok: false;
  absent: true;
  raw: string;
}

export type Outcome = Ok | Failure | Absent;

type TableEntry = { status: number; jsonRpc: number; toolResult: boolean };
const TABLE = ERROR_TABLE as Record<string, TableEntry>;

/** The HTTP status every surface reports for a code. */
export function statusOf(code: string): number {
  const status = (HTTP_STATUS_BY_CODE as Record<string, number>)[code];
  if (status === undefined) throw new Error(`unknown error code ${code}`);
  return status;
}

/** A JSON-RPC error (a tool call that failed as a protocol error) as its code. */
export function codeForJsonRpc(jsonRpc: number): string | undefined {
  const entries = Object.entries(TABLE);
  // Protocol-level codes first (-32602 is validation_failed's and unknown_tool's; a tool call
  // that reaches the protocol layer is the latter), then any code that owns the number alone.
  const protocol = entries.filter(([, spec]) => !spec.toolResult && spec.jsonRpc === jsonRpc);
  if (protocol.length === 1) return protocol[0][0];
  const any = entries.filter(([, spec]) => spec.jsonRpc === jsonRpc);
  return any.length === 1 ? any[0][0] : undefined;
}

/** An HTTP status as its code, when exactly one code has it. */
export function codeForStatus(status: number): string | undefined {
  const matches = Object.entries(TABLE).filter(([, spec]) => spec.status === status);
  return matches.length === 1 ? matches[0][0] : undefined;
}

/** An `{status, title, detail, code, fields?}` error body as a Failure. */
export function failureFromBody(body: unknown, raw: string): Failure {
  const error = body as {
    status?: unknown;
    code?: unknown;
    detail?: unknown;
    fields?: unknown;
    version?: unknown;
    current?: unknown;
  };
  if (typeof error?.code !== "string") {
    throw new Error(`not an error body: ${raw.slice(0, 500)}`);
  }
  return {
    ok: false,
    status: typeof error.status === "number" ? error.status : Number.NaN,
    code: error.code,
    detail: String(error.detail ?? ""),
    ...(error.fields ? { fields: error.fields as Record<string, string> } : {}),
    ...(typeof error.version === "number" ? { version: error.version } : {}),
    ...(error.current ? { current: error.current as Record<string, unknown> } : {}),
    raw,
  };
}

/** An MCP/AI error text (`code: detail…` then the JSON `{error}` on the last line). */
export function failureFromErrorText(text: string, raw: string): Failure {
  const json = text.slice(text.lastIndexOf("\n") + 1);
  return failureFromBody((JSON.parse(json) as { error: unknown }).error, raw);
}

export const isFailure = (outcome: Outcome): outcome is Failure =>
  !outcome.ok && !("absent" in outcome);

/**
 * A success body as every surface shapes it: a page (`data` with `page`, `limit`, `total` and
 * `more` beside it) for list, else the `data` it carries.
 */
export function successFromBody(body: Record<string, unknown>, raw: string): Ok {
  if ("total" in body) {
    const { data, page, limit, total, more } = body as {
      data: unknown;
      page: number;
      limit: number;
      total: number;
      more: boolean;
    };
    return { ok: true, data, page: { page, limit, total, more }, raw };
  }
  return { ok: true, data: body.data, raw };
}
