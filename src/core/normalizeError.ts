/**
 * Maps anything thrown below the core (Mongoose, the driver, hooks) onto the TerrenoError
 * family, keeping driver text and offending values out of every message.
 */

import { lengthMessage } from "../schema/validator.js";
import { type FieldErrors, TerrenoError, validationFailed } from "./errors.js";
import { isCastError, isDocumentNotFoundError, isValidationError } from "./mongooseErrors.js";

const UNAVAILABLE_NAMES = new Set([
  "MongooseServerSelectionError",
  "MongoServerSelectionError",
  "MongoNetworkError",
  "MongoNetworkTimeoutError",
  "MongoNotConnectedError",
  "MongoTopologyClosedError",
  "MongoPoolClearedError",
  "MongoExpiredSessionError",
]);

interface ValidatorErrorLike {
  kind?: string;
  path?: string;
  properties?: {
    enumValues?: unknown[];
    min?: unknown;
    max?: unknown;
    minlength?: unknown;
    maxlength?: unknown;
  };
}

function describeValidatorError(error: ValidatorErrorLike): string {
  const props = error.properties ?? {};
  switch (error.kind) {
    case "required":
      return "is required";
    case "enum":
      return `must be one of: ${(props.enumValues ?? []).join(", ")}`;
    case "min":
      return `must be >= ${props.min}`;
    case "max":
      return `must be <= ${props.max}`;
    case "minlength":
      return lengthMessage("at least", props.minlength);
    case "maxlength":
      return lengthMessage("at most", props.maxlength);
    case "regexp":
      return "has an invalid format";
    default:
      return error.kind && error.kind !== "user defined" && error.kind !== "Error"
        ? `must be a valid ${error.kind}`
        : "is invalid";
  }
}

const UNAVAILABLE_MESSAGE =
  /buffering timed out|connection .* closed|client must be connected|topology was destroyed|ECONNREFUSED|ECONNRESET|server selection timed out/i;

/**
 * Server answers that mean "this server is going away or is no longer the primary": the
 * codes the drivers' retryable-error rules name (a shutdown, a step-down, a failover). The
 * driver retries once; when that fails too, the error surfaces here.
 */
const UNAVAILABLE_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/**
 * FerretDB answers a command in flight when it stops with InternalError (code 1) carrying Go's
 * text: its connection's context was canceled, or its SQLite pool was closed under it.
 */
const FERRETDB_STOPPING = /context canceled|sql: database is closed/;

/** A driver error the driver itself marks as worth retrying (its `RetryableWriteError` label). */
function isLabelledRetryable(error: Error): boolean {
  const labelled = error as Error & { hasErrorLabel?: (label: string) => boolean };
  return (
    typeof labelled.hasErrorLabel === "function" && labelled.hasErrorLabel("RetryableWriteError")
  );
}

/**
 * Whether a failure means "the database cannot be reached right now". The driver wraps and
 * subclasses its network errors (e.g. `PoolClearedOnNetworkError`), and which one surfaces
 * depends on how far it got in noticing the outage, so the names, the messages and the
 * `cause` chain are all consulted.
 */
function isUnavailable(error: Error): boolean {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth += 1) {
    if (
      UNAVAILABLE_NAMES.has(current.name) ||
      /PoolCleared|ServerSelection|NetworkError|NetworkTimeout/.test(current.name) ||
      UNAVAILABLE_MESSAGE.test(current.message) ||
      isServerGoingAway(current)
    ) {
      return true;
    }
    current = current.cause;
  }
  return false;
}

function isServerGoingAway(error: Error): boolean {
  if (!/^Mongo/.test(error.name)) return false;
  const code = (error as Error & { code?: unknown }).code;
  if (typeof code === "number" && UNAVAILABLE_CODES.has(code)) return true;
  if (code === 1 && FERRETDB_STOPPING.test(error.message)) return true;
  return isLabelledRetryable(error);
}

export function normalizeError(error: unknown): TerrenoError {
  if (error instanceof TerrenoError) return error;
  if (isValidationError(error)) {
    const fields: FieldErrors = {};
    for (const [path, inner] of Object.entries(error.errors)) {
      fields[path] = describeValidatorError(inner as ValidatorErrorLike);
    }
    return validationFailed("The document failed validation.", fields);
  }
  // The document was deleted between loading it and saving it (another request, instance).
  if (isDocumentNotFoundError(error)) {
    return new TerrenoError("not_found", "The requested document was not found.");
  }
  if (isCastError(error)) {
    return validationFailed("A value has the wrong type.", {
      [error.path]: `must be a valid ${error.kind}`,
    });
  }
  if (error instanceof Error) {
    const code = (error as Error & { code?: unknown }).code;
    // Duplicate keys are named by the operation that wrote (conflicts.ts), which knows the
    // model and the caller's view; one that escapes it names nothing.
    if (code === 11000) {
      return new TerrenoError("conflict", "A document with the same unique value already exists.");
    }
    // Before the time-limit rule: a retryable ExceededTimeLimit is the server going away.
    if (isUnavailable(error)) {
      return new TerrenoError(
        "database_unavailable",
        "The database is unavailable. Try again shortly.",
        undefined,
        {
          cause: error,
        },
      );
    }
    if (
      code === 50 ||
      (error.name === "MongoServerError" && /time limit|MaxTimeMSExpired/i.test(error.message))
    ) {
      return validationFailed("The query took too long. Narrow the filter or simplify the $regex.");
    }
    // A $regex that JavaScript compiles but the server's engine refuses (look-around and
    // back-references on RE2-based FerretDB, `\u`/`\k` escapes or huge repeats on PCRE).
    if (
      code === 51091 ||
      (error.name === "MongoServerError" && /regular expression is invalid/i.test(error.message))
    ) {
      return validationFailed(
        "The database cannot run this $regex. Use plain characters, classes, anchors and small quantifiers (no look-around, back-references or \\u escapes).",
      );
    }
  }
  // The cause is kept for server-side logs only; it never reaches a response.
  return new TerrenoError("internal", "An unexpected error occurred.", undefined, { cause: error });
}
