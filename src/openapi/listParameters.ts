/**
 * The query parameters of a router's routes, read from its REST view so the document states
 * exactly what the core accepts: paging bounds, sortable fields, populatable references and
 * each filterable field with its allowed operators.
 */

import type { Resource } from "../core/resource.js";
import { MAX_SORT_KEYS } from "../core/sort.js";
import type { SurfaceView } from "../core/viewTypes.js";
import { allowedOperators, filterRules, filterValueSchema } from "../schema/operators.js";
import type { OpenApiObject } from "./types.js";

/** `populate`, on list, create, read and update; none when nothing is populatable. */
export function populateParameter(view: SurfaceView): OpenApiObject | undefined {
  if (view.populatable.length === 0) return undefined;
  const paths = view.populatable.map((p) => p.path);
  return {
    name: "populate",
    in: "query",
    required: false,
    description: `Comma-separated references to populate: ${paths.join(", ")}. Default: all of them; empty for ids only.`,
    schema: { type: "string" },
  };
}

const RESERVED_QUERY = new Set(["page", "limit", "sort", "populate"]);

export function listParameters(resource: Resource, view: SurfaceView): OpenApiObject[] {
  const parameters: OpenApiObject[] = [
    {
      name: "page",
      in: "query",
      required: false,
      description: "The page, from 1.",
      schema: { type: "integer", minimum: 1, default: 1 },
    },
    {
      name: "limit",
      in: "query",
      required: false,
      description: `Documents per page, from 1 to ${view.maxLimit} (default ${view.defaultLimit}).`,
      schema: { type: "integer", minimum: 1, maximum: view.maxLimit, default: view.defaultLimit },
    },
  ];
  if (view.sortable.length > 0) {
    parameters.push({
      name: "sort",
      in: "query",
      required: false,
      description: `Up to ${MAX_SORT_KEYS} comma-separated fields, "-" for descending, e.g. \`-${view.sortable[0]}\`. Sortable: ${view.sortable.join(", ")}.`,
      schema: { type: "string" },
    });
  }
  const populate = populateParameter(view);
  if (populate) parameters.push(populate);
  for (const path of view.filterable) {
    const field = resource.description.byPath.get(path);
    // A field named like a list parameter cannot be filtered from a query string.
    if (!field || RESERVED_QUERY.has(path)) continue;
    const operators = allowedOperators(field);
    const example = operators.includes("$gte")
      ? "$gte"
      : operators.includes("$ne")
        ? "$ne"
        : "$exists";
    const inForm = operators.includes("$in") ? ` or \`${path}[$in][]=a&${path}[$in][]=b\`` : "";
    // The parameter's schema is the equality value (what `path=value` carries); the operator
    // forms are bracketed keys beside it, described here and checked by the core.
    const valueSchema = filterValueSchema(field);
    parameters.push({
      name: path,
      in: "query",
      required: false,
      description: `Filter on ${path}: \`${path}=value\` for equality, or an operator in brackets, e.g. \`${path}[${example}]=value\`${inForm}. Operators: ${operators.join(", ")}. ${filterRules([field])}`,
      schema: valueSchema.anyOf?.[0] ?? valueSchema,
    });
  }
  return parameters;
}
