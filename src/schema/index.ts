/**
 * Public surface of the schema layer: describe a Mongoose model once, then derive portable
 * JSON Schemas, hidden-field rules, filter operator allowlists and validators from it.
 */
export { describeModel, describeSchema } from "./describeModel.js";
export { createHiddenFields, type HiddenFields } from "./hiddenFields.js";
export {
  DEFAULT_MAX_ITEMS,
  filterValueSchema,
  type OutputSchemaOptions,
  outputSchema,
  type WriteSchemaOptions,
  writeSchema,
} from "./jsonSchema.js";
export {
  allowedOperators,
  FORBIDDEN_OPERATORS,
  MAX_IN_ITEMS,
  MAX_REGEX_LENGTH,
  REGEX_OPTIONS_PATTERN,
} from "./operators.js";
export { assertPortable, type PortabilityOptions, portabilityProblems } from "./portability.js";
export type {
  FieldDescriptor,
  FieldKind,
  JsonSchema,
  ModelDescription,
} from "./types.js";
export {
  compileValidator,
  ROOT_KEY,
  type ValidationResult,
  type Validator,
} from "./validator.js";
