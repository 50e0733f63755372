/**
 * A model router in the document: its component schemas (the document, create and update
 * bodies, the list page) and the CRUD operations its REST view enables, nothing more. Bodies
 * are the view's own create/update schemas, the ones the core validates with.
 */

import type { CrudMethod } from "../core/types.js";
import { VERSION_FIELD, versionKey } from "../core/versions.js";
import { withArticle } from "../schema/article.js";
import { outputSchema } from "../schema/outputSchema.js";
import type { JsonSchema } from "../schema/types.js";
import { rateLimitStatuses } from "./errorResponses.js";
import {
  componentName,
  dataEnvelope,
  ID_PARAMETER,
  json,
  jsonBody,
  ref,
  WORKSPACE_PARAMETER,
} from "./fragments.js";
import { IDEMPOTENCY_KEY_PARAMETER, IDEMPOTENCY_STATUSES, replayable } from "./idempotency.js";
import { listParameters, populateParameter } from "./listParameters.js";
import { operation } from "./operation.js";
import type { MountedResource, OpenApiObject, OpenApiSource } from "./types.js";

/** A router's component names, e.g. `Todo`, `TodoCreate`, `TodoUpdate`, `TodoList`. */
export interface ResourceNames {
  document: string;
  create: string;
  update: string;
  list: string;
}

/** Picks the router's component names; `used` holds the bases earlier routers took. */
export function resourceNames(mount: MountedResource, used: Set<string>): ResourceNames {
  const modelName = mount.resource.model.modelName;
  let base = componentName(modelName);
  // Two routers on one model (or same-named models) get distinct components.
  for (let n = 2; used.has(base); n++) base = `${componentName(modelName)}${n}`;
  used.add(base);
  return {
    document: base,
    create: `${base}Create`,
    update: `${base}Update`,
    list: `${base}List`,
  };
}

/** The record's version (src/core/versions.ts), as a read shows it and as a write sends it. */
const VERSION_OUT: JsonSchema = {
  type: "integer",
  minimum: 0,
  description: "Changes on every write; also the ETag. Send it back to make a write conditional.",
};
const VERSION_IN: JsonSchema = {
  type: "integer",
  minimum: 0,
  description: "The version the write expects. Stale: 409 `conflict` with the record now.",
};

function withProperty(schema: JsonSchema, name: string, property: JsonSchema): JsonSchema {
  return { ...schema, properties: { ...schema.properties, [name]: property } };
}

/** `ETag` on a response carrying one record (REST, src/rest/preconditions.ts). */
const ETAG_HEADER = {
  ETag: {
    description: 'The record\'s version as a strong entity tag, e.g. `"3"`.',
    schema: { type: "string" },
  },
};

function withEtag(response: OpenApiObject, versioned: boolean): OpenApiObject {
  return versioned ? { ...response, headers: ETAG_HEADER } : response;
}

function conditionalHeader(name: "If-Match" | "If-None-Match", description: string) {
  return { name, in: "header", required: false, description, schema: { type: "string" } };
}

const IF_MATCH = conditionalHeader(
  "If-Match",
  'The ETag a read returned (`"3"`): the write applies only to that version, else 412 with the record now. `*` or absent: unconditional.',
);
const IF_NONE_MATCH = conditionalHeader(
  "If-None-Match",
  "The ETag a read returned: 304 while the record is still at that version.",
);

/** The router's schemas: the document (hidden fields left out) and one per enabled body. */
export function resourceSchemas(
  mount: MountedResource,
  names: ResourceNames,
  schemas: OpenApiObject,
): void {
  const { resource } = mount;
  const view = resource.views.rest;
  const versioned = versionKey(resource) !== undefined;
  const document = outputSchema(resource.description, { hidden: view.hidden });
  schemas[names.document] = versioned
    ? withProperty(document, VERSION_FIELD, VERSION_OUT)
    : document;
  const field = resource.options.workspace;
  const properties = (schemas[names.document] as { properties?: Record<string, OpenApiObject> })
    .properties;
  if (field && properties?.[field]) {
    properties[field] = {
      ...properties[field],
      readOnly: true,
      description:
        "The record's workspace: set by the server from the call's workspace, never by the caller.",
    };
  }
  if (view.methods.has("create")) schemas[names.create] = view.createSchema;
  if (view.methods.has("update")) {
    schemas[names.update] = versioned
      ? withProperty(view.updateSchema, VERSION_FIELD, VERSION_IN)
      : view.updateSchema;
  }
  if (view.methods.has("list")) {
    schemas[names.list] = {
      type: "object",
      properties: {
        data: { type: "array", items: ref(names.document) },
        page: { type: "integer", minimum: 1 },
        limit: { type: "integer", minimum: 1 },
        total: { type: "integer", minimum: 0 },
        more: { type: "boolean", description: "Whether later pages hold more documents." },
      },
      required: ["data", "page", "limit", "total", "more"],
    };
  }
}

/** `GET`/`POST` on the collection, `GET`/`PATCH`/`DELETE` on `{id}`: the enabled ones only. */
export function resourceOperations(
  mount: MountedResource,
  names: ResourceNames,
  source: OpenApiSource,
  paths: OpenApiObject,
): void {
  const { resource } = mount;
  const view = resource.views.rest;
  const model = resource.model.modelName;
  const tags = [model];
  const collection = mount.path;
  const item = `${mount.path}/{id}`;
  const limited = rateLimitStatuses(source);
  const has = (method: CrudMethod) => view.methods.has(method);
  const populate = populateParameter(view);
  const populateParameters = populate ? [populate] : [];
  const read = dataEnvelope(ref(names.document));
  const versioned = versionKey(resource) !== undefined;
  const ifMatch = versioned ? [IF_MATCH] : [];
  const preconditions = versioned ? [412, ...(resource.options.requireVersion ? [428] : [])] : [];

  if (has("list") || has("create")) paths[collection] ??= {};
  if (has("read") || has("update") || has("delete")) paths[item] ??= {};

  if (has("list")) {
    paths[collection].get = operation({
      tags,
      operationId: `list${names.list}`,
      summary: `List ${model} documents`,
      description:
        "Filters are query parameters: `field=value`, or `field[$op]=value` with an allowed operator. " +
        "`$or`/`$and` take indexed filters, e.g. `$or[0][title]=a&$or[1][priority][$gte]=3`. " +
        "Unknown fields and operators are refused with 400.",
      parameters: listParameters(resource, view),
      responses: { "200": json(ref(names.list), "A page of documents.") },
      errors: [400, 401, 403],
    });
  }
  if (has("create")) {
    paths[collection].post = operation({
      tags,
      operationId: `create${names.document}`,
      summary: `Create ${withArticle(model)}`,
      parameters: [...populateParameters, IDEMPOTENCY_KEY_PARAMETER],
      requestBody: jsonBody(ref(names.create)),
      responses: { "201": replayable(withEtag(json(read, "The created document."), versioned)) },
      errors: [400, 401, 403, ...IDEMPOTENCY_STATUSES, ...limited],
    });
  }
  if (has("read")) {
    paths[item].get = operation({
      tags,
      operationId: `read${names.document}`,
      summary: `Read ${withArticle(model)}`,
      parameters: [ID_PARAMETER, ...populateParameters, ...(versioned ? [IF_NONE_MATCH] : [])],
      responses: {
        "200": withEtag(json(read, "The document."), versioned),
        ...(versioned ? { "304": { description: "Not modified: still at that version." } } : {}),
      },
      errors: [400, 401, 403, 404],
    });
  }
  if (has("update")) {
    const body = { schema: ref(names.update) };
    paths[item].patch = operation({
      tags,
      operationId: `update${names.document}`,
      summary: `Update ${withArticle(model)}`,
      description:
        "A JSON Merge Patch (RFC 7396): fields given are set, `null` removes an optional field (or restores its default), absent fields are left alone.",
      parameters: [ID_PARAMETER, ...populateParameters, ...ifMatch],
      requestBody: {
        required: true,
        content: { "application/merge-patch+json": body, "application/json": body },
      },
      responses: { "200": withEtag(json(read, "The updated document."), versioned) },
      errors: [400, 401, 403, 404, 409, ...preconditions, ...limited],
    });
  }
  if (has("delete")) {
    paths[item].delete = operation({
      tags,
      operationId: `delete${names.document}`,
      summary: `Delete ${withArticle(model)}`,
      parameters: [ID_PARAMETER, ...ifMatch],
      responses: { "204": { description: "Deleted." } },
      errors: [401, 403, 404, ...(versioned ? [409] : []), ...preconditions, ...limited],
    });
  }
  if (resource.options.workspace) {
    for (const path of [collection, item]) {
      for (const op of Object.values(paths[path] ?? {}) as OpenApiObject[]) {
        op.parameters = [
          ...((op.parameters as OpenApiObject[] | undefined) ?? []),
          WORKSPACE_PARAMETER,
        ];
      }
    }
  }
}
