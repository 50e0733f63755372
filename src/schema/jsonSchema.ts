/**
 * The portable JSON Schema generators in one place: request bodies (create/update),
 * serialized documents (output) and list-filter values.
 */
export { filterValueSchema } from "./operators.js";
export { outputSchema } from "./outputSchema.js";
export { DEFAULT_MAX_ITEMS, writeSchema } from "./writeSchema.js";
