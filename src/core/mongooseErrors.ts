/**
 * Mongoose's errors and documents recognised by name and shape rather than `instanceof`: the app
 * brings its own Mongoose (8 or 9, or a second `new Mongoose()`), whose classes need not be the
 * ones a `mongoose` import here would load.
 */

export interface MongooseValidationErrorLike extends Error {
  errors: Record<string, unknown>;
}

export interface MongooseCastErrorLike extends Error {
  path: string;
  kind: string;
}

function named(error: unknown, name: string): error is Error {
  return error instanceof Error && error.name === name;
}

export function isValidationError(error: unknown): error is MongooseValidationErrorLike {
  return (
    named(error, "ValidationError") &&
    typeof (error as { errors?: unknown }).errors === "object" &&
    (error as { errors?: unknown }).errors !== null
  );
}

export function isCastError(error: unknown): error is MongooseCastErrorLike {
  return named(error, "CastError") && typeof (error as { path?: unknown }).path === "string";
}

/** A `save()` whose document was deleted since it was loaded. */
export function isDocumentNotFoundError(error: unknown): boolean {
  return named(error, "DocumentNotFoundError");
}

/** Whether `value` is a Mongoose document (every Mongoose 8 and 9 document has this flag). */
export function isMongooseDocument(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { $isMongooseDocumentPrototype?: unknown }).$isMongooseDocumentPrototype === true
  );
}
