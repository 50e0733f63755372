/**
 * The transport-free CRUD core. Adapters call `runOperation` so every failure, whatever
 * threw it, leaves as one TerrenoError.
 */
import { normalizeError } from "./normalizeError.js";

export { action } from "./operations/action.js";
export { create } from "./operations/create.js";

export { list } from "./operations/list.js";
export { read } from "./operations/read.js";
export { remove } from "./operations/remove.js";
export { update } from "./operations/update.js";

export async function runOperation<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw normalizeError(error);
  }
}
