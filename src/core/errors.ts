/**
 * The one error family every surface speaks, and the one table that says how each code
 * leaves: an HTTP status (REST, and MCP transport faults), a JSON-RPC error code, and
 * whether a failed tool call reports it as a result the model can act on (`isError` in MCP,
 * `{error}` in AI SDK tools) or as a protocol error. Plugins add codes with `defineErrorCode`.
 */

export const ERROR_CODES = [
  "unauthenticated",
  "forbidden",
  "method_not_allowed",
  "not_found",
  "validation_failed",
  "conflict",
  "precondition_failed",
  "precondition_required",
  "payload_too_large",
  "headers_too_large",
  "unsupported_media_type",
  "not_acceptable",
  "rate_limited",
  "database_unavailable",
  "shutting_down",
  "parse_error",
  "invalid_request",
  "unknown_tool",
  "internal",
] as const;

export type BuiltInErrorCode = (typeof ERROR_CODES)[number];

/** A code registered by a plugin through `defineErrorCode`. */
export type CustomErrorCode = string & { readonly __customErrorCode: unique symbol };

export type ErrorCode = BuiltInErrorCode | CustomErrorCode;

export interface ErrorSpec {
  status: number;
  title: string;
  /** The JSON-RPC error code when this failure is a protocol error (MCP). */
  jsonRpc: number;
  /** Inside a tool call: report as a result the model reads (true) or as a protocol error. */
  toolResult: boolean;
}

/** JSON-RPC: -32000 is the implementation-defined server error (a condition, not a fault). */
const SERVER_ERROR = -32000;

export const ERROR_TABLE = {
  unauthenticated: { status: 401, title: "Unauthenticated", jsonRpc: -32001, toolResult: true },
  forbidden: { status: 403, title: "Forbidden", jsonRpc: SERVER_ERROR, toolResult: true },
  method_not_allowed: {
    status: 405,
    title: "Method Not Allowed",
    jsonRpc: SERVER_ERROR,
    toolResult: true,
  },
  not_found: { status: 404, title: "Not Found", jsonRpc: SERVER_ERROR, toolResult: true },
  validation_failed: {
    status: 400,
    title: "Validation Failed",
    jsonRpc: -32602,
    toolResult: true,
  },
  conflict: { status: 409, title: "Conflict", jsonRpc: SERVER_ERROR, toolResult: true },
  precondition_failed: {
    status: 412,
    title: "Precondition Failed",
    jsonRpc: SERVER_ERROR,
    toolResult: true,
  },
  precondition_required: {
    status: 428,
    title: "Precondition Required",
    jsonRpc: SERVER_ERROR,
    toolResult: true,
  },
  payload_too_large: {
    status: 413,
    title: "Payload Too Large",
    jsonRpc: -32600,
    toolResult: true,
  },
  headers_too_large: {
    status: 431,
    title: "Request Header Fields Too Large",
    jsonRpc: -32600,
    toolResult: true,
  },
  unsupported_media_type: {
    status: 415,
    title: "Unsupported Media Type",
    jsonRpc: -32600,
    toolResult: true,
  },
  not_acceptable: { status: 406, title: "Not Acceptable", jsonRpc: SERVER_ERROR, toolResult: true },
  rate_limited: {
    status: 429,
    title: "Too Many Requests",
    jsonRpc: SERVER_ERROR,
    toolResult: true,
  },
  database_unavailable: {
    status: 503,
    title: "Database Unavailable",
    jsonRpc: SERVER_ERROR,
    toolResult: true,
  },
  shutting_down: {
    status: 503,
    title: "Service Unavailable",
    jsonRpc: SERVER_ERROR,
    toolResult: true,
  },
  parse_error: { status: 400, title: "Parse Error", jsonRpc: -32700, toolResult: false },
  invalid_request: { status: 400, title: "Invalid Request", jsonRpc: -32600, toolResult: false },
  unknown_tool: { status: 404, title: "Unknown Tool", jsonRpc: -32602, toolResult: false },
  internal: {
    status: 500,
    title: "Internal Server Error",
    jsonRpc: -32603,
    toolResult: false,
  },
} as const satisfies Record<BuiltInErrorCode, ErrorSpec>;

/** HTTP status per built-in code (a view of ERROR_TABLE, kept for existing imports). */
export const HTTP_STATUS_BY_CODE = Object.fromEntries(
  ERROR_CODES.map((code) => [code, ERROR_TABLE[code].status]),
) as { [K in BuiltInErrorCode]: (typeof ERROR_TABLE)[K]["status"] };

const customCodes = new Map<string, ErrorSpec>();

/**
 * Registers a plugin's own error code, e.g. `defineErrorCode("llm_unavailable", {status: 503,
 * title: "LLM Unavailable"})`. Registering a built-in code, or one code twice with a
 * different spec, throws: codes are a closed, documented set.
 */
export function defineErrorCode(
  code: string,
  spec: Pick<ErrorSpec, "status" | "title"> & Partial<ErrorSpec>,
): CustomErrorCode {
  if (!/^[a-z][a-z0-9_]*$/.test(code)) {
    throw new Error(`terreno-mcp: error code "${code}" must be snake_case.`);
  }
  if ((ERROR_CODES as readonly string[]).includes(code)) {
    throw new Error(`terreno-mcp: error code "${code}" is built in.`);
  }
  const full: ErrorSpec = {
    jsonRpc: SERVER_ERROR,
    toolResult: spec.status < 500 || spec.status === 503,
    ...spec,
  };
  const existing = customCodes.get(code);
  if (existing && JSON.stringify(existing) !== JSON.stringify(full)) {
    throw new Error(`terreno-mcp: error code "${code}" is already defined differently.`);
  }
  customCodes.set(code, full);
  return code as CustomErrorCode;
}

export function errorSpec(code: ErrorCode): ErrorSpec {
  return (
    (ERROR_TABLE as Record<string, ErrorSpec>)[code] ??
    customCodes.get(code) ??
    ERROR_TABLE.internal
  );
}

/** Field path → human-readable reason, e.g. `{ title: "is required" }`. */
export type FieldErrors = Record<string, string>;

/**
 * A record as it is now, carried by a stale write's refusal (versions.ts) so the caller can
 * merge and retry: its version, and the record as a read on the caller's surface shows it.
 */
export interface CurrentRecord {
  version: number;
  data: unknown;
}

export class TerrenoError extends Error {
  readonly code: ErrorCode;
  readonly fields?: FieldErrors;
  /** Extra HTTP headers this failure carries (e.g. `Retry-After`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The record as it is now, when a write was refused for a stale version. */
  readonly current?: CurrentRecord;

  constructor(
    code: ErrorCode,
    detail: string,
    fields?: FieldErrors,
    options?: { cause?: unknown; headers?: Record<string, string>; current?: CurrentRecord },
  ) {
    super(detail, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "TerrenoError";
    this.code = code;
    if (fields && Object.keys(fields).length > 0) {
      this.fields = fields;
    }
    if (options?.headers) this.headers = options.headers;
    if (options?.current) this.current = options.current;
  }

  get spec(): ErrorSpec {
    return errorSpec(this.code);
  }

  get status(): number {
    return this.spec.status;
  }

  get title(): string {
    return this.spec.title;
  }
}

/** The JSON body every surface returns for an error. */
export interface ErrorBody {
  status: number;
  title: string;
  detail: string;
  code: ErrorCode;
  fields?: FieldErrors;
  /** A stale write's refusal: the record's current version, and the record as it is now. */
  version?: number;
  current?: unknown;
}

/** What every surface says for a server fault, whatever the thrower wrote. */
const INTERNAL_DETAIL = "An unexpected error occurred.";

/**
 * The one place an error becomes a body: an `internal` fault never carries its own text or
 * fields out, whoever threw it (the cause stays in the server log).
 */
export function toErrorBody(error: TerrenoError): ErrorBody {
  // Unknown codes fall back to `internal` in errorSpec, and are masked like it.
  const fault = errorSpec(error.code) === ERROR_TABLE.internal;
  const body: ErrorBody = {
    status: error.status,
    title: error.title,
    detail: fault ? INTERNAL_DETAIL : error.message,
    code: error.code,
  };
  if (error.fields && !fault) {
    body.fields = error.fields;
  }
  if (error.current && !fault) {
    body.version = error.current.version;
    body.current = error.current.data;
  }
  return body;
}

export const unauthenticated = (detail = "Authentication is required for this request.") =>
  new TerrenoError("unauthenticated", detail);
export const forbidden = (detail = "You do not have permission to perform this action.") =>
  new TerrenoError("forbidden", detail);
export const notFound = (detail = "The requested document was not found.") =>
  new TerrenoError("not_found", detail);
export const validationFailed = (detail: string, fields?: FieldErrors) =>
  new TerrenoError("validation_failed", detail, fields);
export const methodNotAllowed = (method: string) =>
  new TerrenoError("method_not_allowed", `The ${method} method is not enabled for this resource.`);
