/**
 * The plugins' own routes in the document (TerrenoPlugin.openApi): each plugin is handed the
 * shared error responses and security of this document, and its paths, schemas and tags are
 * merged in after the routers and auth routes, never over them.
 */

import { errors, rateLimitStatuses } from "./errorResponses.js";
import { securitySchemes } from "./security.js";
import type { OpenApiContribution, OpenApiHelpers, OpenApiObject, OpenApiSource } from "./types.js";

/** What the plugins get to write operations like the document's own. */
export function openApiHelpers(source: OpenApiSource): OpenApiHelpers {
  return {
    errors,
    rateLimited: rateLimitStatuses(source).length > 0,
    security: Object.keys(securitySchemes(source)).map((name) => ({ [name]: [] })),
  };
}

/** The contributions' own security schemes; the document's names (`schemes`) are kept. */
export function pluginSecuritySchemes(
  contributions: readonly OpenApiContribution[],
  schemes: OpenApiObject,
): OpenApiObject {
  const merged: OpenApiObject = { ...schemes };
  for (const contribution of contributions) {
    for (const [name, scheme] of Object.entries(contribution.securitySchemes ?? {})) {
      merged[name] ??= scheme;
    }
  }
  return merged;
}

/** Adds each contribution's paths (methods already there stay), schemas and tags. */
export function pluginOperations(
  contributions: readonly OpenApiContribution[],
  paths: OpenApiObject,
  schemas: OpenApiObject,
): string[] {
  const tags: string[] = [];
  for (const contribution of contributions) {
    for (const [path, item] of Object.entries(contribution.paths)) {
      paths[path] = { ...item, ...(paths[path] ?? {}) };
    }
    for (const [name, schema] of Object.entries(contribution.schemas ?? {})) {
      schemas[name] ??= schema;
    }
    for (const tag of contribution.tags ?? []) tags.push(tag.name);
  }
  return tags;
}
