/**
 * The list tool's input schema: the typed list input of the tools view, which the core also
 * enforces on every tools list call (see core/listSchema.ts). A `filter` over the filterable
 * fields (each a value or an allowlisted operator object, plus `$or`/`$and`), `sort` limited
 * by pattern to the sortable paths, `page`, `limit` and `populate`.
 */
import { populateSchema as populateSchemaOf } from "../core/listSchema.js";
import type { Resource } from "../core/resource.js";
import type { JsonSchema } from "../schema/types.js";

export function populateSchema(resource: Resource): JsonSchema | undefined {
  return populateSchemaOf(resource.views.tools.populatable.map((p) => p.path));
}

export function listInputSchema(resource: Resource): JsonSchema {
  const contract = resource.views.tools.listInput;
  if (!contract) throw new Error("terreno-mcp: the tools view has no list input");
  return contract.schema;
}
