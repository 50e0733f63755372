/**
 * The one error family every surface speaks. The core throws these; each adapter maps
 * the closed set of codes once (HTTP status for REST, isError results for MCP and AI tools).
 */

export const ERROR_CODES = [
  "unauthenticated",
  "forbidden",
  "method_not_allowed",
  "not_found",
  "validation_failed",
  "conflict",
  "payload_too_large",
  "headers_too_large",
  "unsupported_media_type",
  "not_acceptable",
  "rate_limited",
  "database_unavailable",
  "shutting_down",
  "internal",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** HTTP status per code; `satisfies` makes the compiler reject a missing code. */
export const HTTP_STATUS_BY_CODE = {
  unauthenticated: 401,
  forbidden: 403,
  method_not_allowed: 405,
  not_found: 404,
  validation_failed: 400,
  conflict: 409,
  payload_too_large: 413,
  headers_too_large: 431,
  unsupported_media_type: 415,
  not_acceptable: 406,
  rate_limited: 429,
  database_unavailable: 503,
  shutting_down: 503,
  internal: 500,
} as const satisfies Record<ErrorCode, number>;

const TITLE_BY_CODE = {
  unauthenticated: "Unauthenticated",
  forbidden: "Forbidden",
  method_not_allowed: "Method Not Allowed",
  not_found: "Not Found",
  validation_failed: "Validation Failed",
  conflict: "Conflict",
  payload_too_large: "Payload Too Large",
  headers_too_large: "Request Header Fields Too Large",
  unsupported_media_type: "Unsupported Media Type",
  not_acceptable: "Not Acceptable",
  rate_limited: "Too Many Requests",
  database_unavailable: "Database Unavailable",
  shutting_down: "Service Unavailable",
  internal: "Internal Server Error",
} as const satisfies Record<ErrorCode, string>;

/** Field path → human-readable reason, e.g. `{ title: "is required" }`. */
export type FieldErrors = Record<string, string>;

export class TerrenoError extends Error {
  readonly code: ErrorCode;
  readonly fields?: FieldErrors;

  constructor(
    code: ErrorCode,
    detail: string,
    fields?: FieldErrors,
    options?: { cause?: unknown },
  ) {
    super(detail, options);
    this.name = "TerrenoError";
    this.code = code;
    if (fields && Object.keys(fields).length > 0) {
      this.fields = fields;
    }
  }

  get status(): number {
    return HTTP_STATUS_BY_CODE[this.code];
  }

  get title(): string {
    return TITLE_BY_CODE[this.code];
  }
}

/** The JSON body every surface returns for an error. */
export interface ErrorBody {
  status: number;
  title: string;
  detail: string;
  code: ErrorCode;
  fields?: FieldErrors;
}

export function toErrorBody(error: TerrenoError): ErrorBody {
  const body: ErrorBody = {
    status: error.status,
    title: error.title,
    detail: error.message,
    code: error.code,
  };
  if (error.fields) {
    body.fields = error.fields;
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
