/**
 * The OpenAPI 3.1 document of a TerrenoApp, generated from the same REST views the core
 * enforces (src/core/view.ts): the methods each router serves, its filterable, sortable and
 * populatable fields, page limits, and its create/update body schemas, which are the very
 * schemas the core validates with. Response documents use the output schema the MCP tools
 * advertise, with the REST view's hidden fields (`select: false`) left out. Errors are the one
 * ErrorBody shape of src/core/errors.ts, one response per status of the error table.
 *
 * This file assembles the document; each part is built in its own file (routers in
 * resourcePaths.ts, actions, auth, personal tokens, plugins' own routes, custom tools, errors,
 * security).
 */

import { actionOperations } from "./actionPaths.js";
import { authOperations } from "./authPaths.js";
import { errorBodySchema, errorResponseComponents } from "./errorResponses.js";
import { pluginOperations, pluginSecuritySchemes } from "./pluginPaths.js";
import { resourceNames, resourceOperations, resourceSchemas } from "./resourcePaths.js";
import { documentSecurity, securitySchemes } from "./security.js";
import { customToolOperations } from "./toolPaths.js";
import type { OpenApiObject, OpenApiSource } from "./types.js";

export type {
  MountedResource,
  OpenApiObject,
  OpenApiSource,
} from "./types.js";

/** Builds the whole document. Pure: the same source gives the same document. */
export function buildOpenApiDocument(source: OpenApiSource): OpenApiObject {
  // Insertion order is the document's order: routers (each with its actions), auth, tools.
  const paths: OpenApiObject = {};
  const schemas: OpenApiObject = { Error: errorBodySchema() };
  const used = new Set<string>();
  for (const mount of source.mounts) {
    const names = resourceNames(mount, used);
    resourceSchemas(mount, names, schemas);
    resourceOperations(mount, names, source, paths);
    actionOperations(mount, names, source, paths);
  }
  if (source.auth) authOperations(source.auth, source, paths, schemas);
  const pluginTags = pluginOperations(source.contributions ?? [], paths, schemas);
  // Last: a tool's operation id steps aside for any id already taken above.
  customToolOperations(source, paths);

  const schemes = securitySchemes(source);
  // The plugins' schemes are declared, but only the document's own make the default security.
  const declared = pluginSecuritySchemes(source.contributions ?? [], schemes);
  const document: OpenApiObject = {
    openapi: "3.1.0",
    info: {
      title: source.info?.title ?? "API",
      version: source.info?.version ?? "0.0.0",
      ...(source.info?.description ? { description: source.info.description } : {}),
    },
    // Relative: the document is correct behind any host or proxy prefix that serves it.
    servers: [{ url: "/" }],
    paths,
    components: {
      schemas,
      responses: errorResponseComponents(),
      ...(Object.keys(declared).length > 0 ? { securitySchemes: declared } : {}),
    },
  };
  const security = documentSecurity(schemes);
  if (security) document.security = security;
  const tags = [
    ...new Set(source.mounts.map((m) => m.resource.model.modelName)),
    ...(source.auth ? ["Auth"] : []),
    ...(source.auth?.personalTokens ? ["Personal access tokens"] : []),
    ...pluginTags,
    ...((source.customTools?.length ?? 0) > 0 ? ["Tools"] : []),
  ];
  const described = new Map(
    (source.contributions ?? []).flatMap((c) => c.tags ?? []).map((tag) => [tag.name, tag]),
  );
  document.tags = [...new Set(tags)].map((name) => described.get(name) ?? { name });
  return document;
}
