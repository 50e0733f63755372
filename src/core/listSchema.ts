/**
 * The typed list input of the surface whose callers send JSON (MCP and AI tools): the JSON
 * Schema the list tool advertises, and the validator the core runs on every list call of that
 * surface, so what the schema refuses the core refuses too. The schema carries types, enums
 * and which operators exist; the limits the core checks on every surface (lengths, id and
 * date syntax, sortable names, page bounds, `$or`/`$and` shape) are stated once in property
 * descriptions instead of as keywords repeated per operand, which also keeps them in front of
 * models whose providers drop such keywords.
 */
import { filterValueSchema } from "../schema/jsonSchema.js";
import { filterRules } from "../schema/operators.js";
import type { FieldDescriptor, JsonSchema, ModelDescription } from "../schema/types.js";
import { compileValidator, summarizeFields, type Validator } from "../schema/validator.js";
import { FILTER_COMBINATORS, MAX_COMBINATOR_BRANCHES, MAX_COMBINATOR_DEPTH } from "./filter.js";
import { MAX_SORT_KEYS } from "./sort.js";
import type { PlainObject, PopulatePath } from "./types.js";
import type { ListInputContract } from "./viewTypes.js";

/** The parts of a view the list input is read from. */
export interface ListSchemaSource {
  filterable: readonly string[];
  sortable: readonly string[];
  populatable: readonly PopulatePath[];
  defaultLimit: number;
  maxLimit: number;
}

export function populateSchema(paths: readonly string[]): JsonSchema | undefined {
  if (paths.length === 0) return undefined;
  return {
    type: "array",
    items: { type: "string", enum: [...paths] },
    description: "Default all; [] for ids only.",
  };
}

function filterSchema(description: ModelDescription, filterable: readonly string[]) {
  const properties: Record<string, JsonSchema> = {};
  const fields: FieldDescriptor[] = [];
  for (const path of filterable) {
    const field = description.byPath.get(path);
    if (!field) continue;
    properties[path] = filterValueSchema(field);
    fields.push(field);
  }
  if (fields.length === 0) return undefined;
  // Branches are "filter objects like this one": typed here, by checkBranches, not repeated.
  for (const combinator of FILTER_COMBINATORS) {
    properties[combinator] = { type: "array", items: { type: "object" } };
  }
  return {
    type: "object",
    properties,
    additionalProperties: false,
    description: `${filterRules(fields)} $or/$and: 1-${MAX_COMBINATOR_BRANCHES} non-empty filters like this one, nested ≤${MAX_COMBINATOR_DEPTH}.`,
  } satisfies JsonSchema;
}

export function listInputSchema(description: ModelDescription, view: ListSchemaSource): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const filter = filterSchema(description, view.filterable);
  if (filter) properties.filter = filter;
  const { sortable, maxLimit, defaultLimit } = view;
  if (sortable.length > 0) {
    properties.sort = {
      type: "string",
      description: `≤${MAX_SORT_KEYS} comma-separated, "-" for descending: ${sortable.join(", ")}.`,
    };
  }
  properties.page = { type: "integer", description: "From 1." };
  properties.limit = {
    type: "integer",
    description:
      defaultLimit === maxLimit
        ? `From 1, default and cap ${maxLimit}.`
        : `From 1, default ${defaultLimit}, capped at ${maxLimit}.`,
  };
  const populate = populateSchema(view.populatable.map((p) => p.path));
  if (populate) properties.populate = populate;
  return { type: "object", properties, additionalProperties: false };
}

function isRecord(value: unknown): value is PlainObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Checks each `$or`/`$and` branch below `clause` against the filter schema, recursively. */
function checkBranches(
  clause: PlainObject,
  path: string,
  validateClause: Validator,
  fields: Record<string, string>,
): void {
  for (const combinator of FILTER_COMBINATORS) {
    const branches = clause[combinator];
    if (!Array.isArray(branches)) continue;
    branches.forEach((branch, index) => {
      if (!isRecord(branch)) return; // the enclosing schema already refused it
      const at = `${path}.${combinator}.${index}`;
      const checked = validateClause(branch);
      if (checked.ok) {
        checkBranches(branch, at, validateClause, fields);
        return;
      }
      for (const [key, message] of Object.entries(checked.fields)) {
        fields[key === "(root)" ? at : `${at}.${key}`] = message;
      }
    });
  }
}

/** Compiles on first use: most resources never serve a tools list, and compiling is the cost. */
function lazy(compile: () => Validator): Validator {
  let validator: Validator | undefined;
  return (value) => {
    validator ??= compile();
    return validator(value);
  };
}

export function listInputContract(
  description: ModelDescription,
  view: ListSchemaSource,
): ListInputContract {
  const schema = listInputSchema(description, view);
  const clause = schema.properties?.filter;
  const validateInput = lazy(() => compileValidator(schema));
  const validateClause = clause ? lazy(() => compileValidator(clause)) : undefined;
  const validate: Validator = (value) => {
    const checked = validateInput(value);
    if (!checked.ok || !validateClause || !isRecord(value) || !isRecord(value.filter)) {
      return checked;
    }
    const fields: Record<string, string> = {};
    checkBranches(value.filter, "filter", validateClause, fields);
    if (Object.keys(fields).length === 0) return checked;
    return { ok: false, fields, message: summarizeFields(fields) };
  };
  return { schema, validate };
}
