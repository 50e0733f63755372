/**
 * The HTTP edge's rules for a request body, shared by REST and /mcp: what a body-parser
 * failure means (from the one error table), and the refusals of a parsed body that no later
 * step may see (nested too deep; an own `__proto__` key), via the core's input checks.
 */
import { TerrenoError } from "../core/errors.js";
import { findProtoKey, findTooDeep, MAX_DEPTH, TOO_DEEP_REASON } from "../core/inputSafety.js";
import { normalizeError } from "../core/normalizeError.js";

interface HttpErrorLike {
  status?: number;
  statusCode?: number;
  type?: string;
}

/**
 * A body-parser (http-errors style) failure as a TerrenoError, keeping its status and dropping
 * its text; undefined for anything else. Invalid JSON is `invalidJson`: REST's
 * `validation_failed`, JSON-RPC's `parse_error` (-32700).
 */
function bodyParserError(
  error: unknown,
  invalidJson: "validation_failed" | "parse_error" = "validation_failed",
): TerrenoError | undefined {
  if (typeof error !== "object" || error === null || error instanceof TerrenoError)
    return undefined;
  const { status, statusCode, type } = error as HttpErrorLike;
  const code = status ?? statusCode;
  if (type === "entity.parse.failed") {
    return new TerrenoError(invalidJson, "The request body is not valid JSON.");
  }
  if (code === 413 || type === "entity.too.large") {
    return new TerrenoError("payload_too_large", "The request body is too large.");
  }
  if (code === 415 || type === "charset.unsupported" || type === "encoding.unsupported") {
    return new TerrenoError(
      "unsupported_media_type",
      "The request body's encoding is not supported.",
    );
  }
  if (code === 400) {
    return new TerrenoError("validation_failed", "The request could not be read.");
  }
  return undefined;
}

/** Anything a body parser (or a route after it) threw, as a TerrenoError: REST's and /mcp's. */
export function bodyFailure(
  error: unknown,
  invalidJson: "validation_failed" | "parse_error" = "validation_failed",
): TerrenoError {
  return bodyParserError(error, invalidJson) ?? normalizeError(error);
}

/**
 * The refusal of a body nested more than MAX_DEPTH levels (found by an iterative scan, so no
 * recursive walk ever sees it), naming the path; `code` is the surface's own 400.
 */
export function bodyTooDeep(
  body: unknown,
  code: "validation_failed" | "invalid_request",
): TerrenoError | undefined {
  const path = findTooDeep(body);
  if (path === undefined) return undefined;
  return new TerrenoError(code, `The body is nested deeper than ${MAX_DEPTH} levels.`, {
    [path]: TOO_DEEP_REASON,
  });
}

/** The refusal of a body with an own `__proto__` key anywhere, as the core refuses it. */
export function bodyProtoKey(body: unknown): TerrenoError | undefined {
  const path = findProtoKey(body);
  if (path === undefined) return undefined;
  return new TerrenoError("validation_failed", 'The key "__proto__" is not allowed.', {
    [path]: 'may not contain the key "__proto__"',
  });
}
