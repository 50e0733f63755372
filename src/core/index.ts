/**
 * The transport-free CRUD core. Adapters call `runOperation` so every failure, whatever
 * threw it, leaves as one TerrenoError.
 */
import { normalizeError } from "./normalizeError.js";

export { type ActionInput, action } from "./operations/action.js";
export { type CreateInput, create } from "./operations/create.js";
export { customTool } from "./operations/customTool.js";
export { type ListInput, type ListResult, list } from "./operations/list.js";
export { type ReadInput, read } from "./operations/read.js";
export { type DeleteInput, type DeleteResult, remove } from "./operations/remove.js";
export { type UpdateInput, update } from "./operations/update.js";

export async function runOperation<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw normalizeError(error);
  }
}
