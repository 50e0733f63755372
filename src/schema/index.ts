/**
 * Public surface of the schema layer: describe a Mongoose model once, then derive portable
 * JSON Schemas, hidden-field rules, filter operator allowlists and validators from it.
 */

export { DEFAULT_MAX_ITEMS } from "./jsonSchema.js";
