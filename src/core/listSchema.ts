/**
 * The typed list input of the surface whose callers send JSON (MCP and AI tools): the JSON
 * Schema the list tool advertises, and the validator the core runs on every list call of that
 * surface, so what the schema refuses the core refuses too. The schema carries each filter
 * field's type and enum once; which operators each field takes and the limits the core checks
 * on every surface (operand types, lengths, id and date syntax, sortable names, page bounds,
 * `$or`/`$and` shape) are stated once in descriptions instead of as keywords repeated per
 * operand, which also keeps them in front of models whose providers drop such keywords.
 */
import { filterValueSchema } from "../schema/jsonSchema.js";
import { FILTER_VALUE_SENTENCE, filterRules, operatorRules } from "../schema/operators.js";
import type { FieldDescriptor, JsonSchema, ModelDescription } from "../schema/types.js";
import { compileValidator, type Validator } from "../schema/validator.js";
import { FILTER_COMBINATORS, MAX_COMBINATOR_BRANCHES, MAX_COMBINATOR_DEPTH } from "./filter.js";
import { MAX_SORT_KEYS } from "./sort.js";
import type { PopulatePath } from "./types.js";
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
  // Branches are "filter objects like this one": checked by the core, not repeated.
  for (const combinator of FILTER_COMBINATORS) {
    properties[combinator] = { type: "array", items: { type: "object" } };
  }
  return {
    type: "object",
    properties,
    additionalProperties: false,
    description: `${FILTER_VALUE_SENTENCE} ${operatorRules(fields)} ${filterRules(fields)} $or/$and: 1-${MAX_COMBINATOR_BRANCHES} non-empty filters like this one, nested ≤${MAX_COMBINATOR_DEPTH}.`,
  } satisfies JsonSchema;
}

function listInputSchema(description: ModelDescription, view: ListSchemaSource): JsonSchema {
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

/** Compiles on first use: most resources never serve a tools list, and compiling is the cost. */
function lazy(compile: () => Validator): Validator {
  let validator: Validator | undefined;
  return (value) => {
    validator ??= compile();
    return validator(value);
  };
}

/**
 * The advertised schema, checked with ajv, except inside the filter: there the core's
 * buildFilter (which REST's filters go through too) decides, after this check. It refuses
 * everything the filter's schema refuses (an unknown field, a wrong type, an operator the
 * description does not give the field), naming each path once in the same words on every
 * surface; ajv would name a bad operand twice, once per `anyOf` branch. So only the filter's
 * own type is left to ajv here.
 */
export function listInputContract(
  description: ModelDescription,
  view: ListSchemaSource,
): ListInputContract {
  const schema = listInputSchema(description, view);
  const checked: JsonSchema = schema.properties?.filter
    ? { ...schema, properties: { ...schema.properties, filter: { type: "object" } } }
    : schema;
  return { schema, validate: lazy(() => compileValidator(checked)) };
}
