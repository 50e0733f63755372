/**
 * The OpenAPI 3.1 document of a TerrenoApp, generated from the same REST views the core
 * enforces (src/core/view.ts): the methods each router serves, its filterable, sortable and
 * populatable fields, page limits, and its create/update body schemas, which are the very
 * schemas the core validates with. Response documents use the output schema the MCP tools
 * advertise, with the REST view's hidden fields (`select: false`) left out. Errors are the one
 * ErrorBody shape of src/core/errors.ts, one response per status of the error table.
 */

import { MAX_PASSWORD_BYTES, MIN_PASSWORD_LENGTH } from "../auth/password.js";
import {
  ERROR_CODES,
  ERROR_TABLE,
  type ErrorCode,
  type ErrorSpec,
  errorSpec,
} from "../core/errors.js";
import type { Resource } from "../core/resource.js";
import { MAX_SORT_KEYS } from "../core/sort.js";
import type { AnyModel, CrudMethod } from "../core/types.js";
import type { SurfaceView } from "../core/view.js";
import { portableJsonSchema } from "../core/zodSchema.js";
import { describeModel } from "../schema/describeModel.js";
import { createHiddenFields } from "../schema/hiddenFields.js";
import { allowedOperators, filterRules, filterValueSchema } from "../schema/operators.js";
import { outputSchema } from "../schema/outputSchema.js";
import type { JsonSchema } from "../schema/types.js";

// biome-ignore lint/suspicious/noExplicitAny: OpenAPI objects are open JSON.
export type OpenApiObject = Record<string, any>;

export interface OpenApiInfo {
  title?: string;
  version?: string;
  description?: string;
}

/**
 * A custom tool (`app.tool(...)`, served at `POST /tools/<name>`): what the document reads of
 * its tool definition.
 */
export interface DocumentedTool {
  name: string;
  title: string;
  description: string;
  /** The body: the tool's input JSON Schema, as `tools/list` advertises it. */
  inputSchema: JsonSchema;
  /** The 200 answer: the tool's output schema (`{data}`), its MCP `structuredContent`. */
  outputSchema: JsonSchema;
  annotations: { readOnlyHint?: boolean };
}

/** One model router as mounted on the app. */
export interface MountedResource {
  /** The mount path, e.g. `/todos`. */
  path: string;
  resource: Resource;
}

export interface OpenApiSource {
  info?: OpenApiInfo;
  mounts: readonly MountedResource[];
  /** The JWT routes, when the app serves them. */
  auth?: {
    /** Default `/auth`. */
    path: string;
    userModel: AnyModel;
    signupFields: readonly string[];
    /** Personal access token routes at `<path>/tokens`. */
    personalTokens?: { maxExpiresInDays: number; defaultExpiresInDays: number };
  };
  /** Other bearer providers (Better Auth, external JWTs) accept `Authorization: Bearer`. */
  bearer?: boolean;
  /** Whether 429 answers are possible (the app's rate limits are on). */
  rateLimited?: boolean;
  /** The custom tools, each documented as `POST /tools/<name>`. */
  customTools?: readonly DocumentedTool[];
}

/** The statuses documented as shared responses, with their component names. */
const ERROR_RESPONSES: ReadonlyArray<[number, string]> = [
  [400, "BadRequest"],
  [401, "Unauthorized"],
  [403, "Forbidden"],
  [404, "NotFound"],
  [405, "MethodNotAllowed"],
  [409, "Conflict"],
  [429, "TooManyRequests"],
];

/** A component reference; typed as a schema so it can sit wherever one does. */
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` }) as JsonSchema;
const responseRef = (status: number) => {
  const entry = ERROR_RESPONSES.find(([s]) => s === status);
  return { $ref: `#/components/responses/${entry?.[1] ?? "BadRequest"}` };
};

/** `Todo` → `Todo`, `food-item` → `FoodItem`: a component name OpenAPI accepts. */
function componentName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) =>
    c ? c.toUpperCase() : "",
  );
  return cleaned.charAt(0).toUpperCase() + cleaned.slice(1);
}

function errorBodySchema(): JsonSchema {
  return {
    type: "object",
    description: "The body of every error, on every route and surface.",
    properties: {
      status: { type: "integer", description: "The HTTP status, repeated." },
      title: { type: "string", description: "The status's short title." },
      detail: { type: "string", description: "What went wrong, for a person." },
      code: {
        type: "string",
        description: `A stable machine-readable code: ${ERROR_CODES.join(", ")} (plugins may add codes).`,
      },
      fields: {
        type: "object",
        additionalProperties: { type: "string" },
        description: "Field path → reason, for validation failures.",
      },
    },
    required: ["status", "title", "detail", "code"],
    additionalProperties: false,
  };
}

function errorResponse(status: number): OpenApiObject {
  const codes = ERROR_CODES.filter((code) => (ERROR_TABLE[code] as ErrorSpec).status === status);
  const title = codes.length > 0 ? errorSpec(codes[0] as ErrorCode).title : `Error ${status}`;
  const response: OpenApiObject = {
    description: `${title}: code ${codes.join(", ") || "(plugin-defined)"}.`,
    content: { "application/json": { schema: ref("Error") } },
  };
  if (status === 429) {
    response.headers = {
      "Retry-After": {
        description: "Seconds to wait before retrying.",
        schema: { type: "integer", minimum: 1 },
      },
    };
  }
  return response;
}

function errors(statuses: readonly number[]): OpenApiObject {
  return Object.fromEntries(statuses.map((status) => [String(status), responseRef(status)]));
}

function dataEnvelope(schema: JsonSchema): JsonSchema {
  return {
    type: "object",
    properties: { data: schema },
    required: ["data"],
  };
}

function json(schema: JsonSchema, description: string): OpenApiObject {
  return { description, content: { "application/json": { schema } } };
}

const ID_PARAMETER = {
  name: "id",
  in: "path",
  required: true,
  description: "The document's id (24 hex characters).",
  schema: { type: "string", pattern: "^[0-9a-fA-F]{24}$" },
};

function populateParameter(view: SurfaceView): OpenApiObject | undefined {
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

function listParameters(resource: Resource, view: SurfaceView): OpenApiObject[] {
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

interface Names {
  document: string;
  create: string;
  update: string;
  list: string;
}

function resourceOperations(
  mount: MountedResource,
  names: Names,
  source: OpenApiSource,
  paths: OpenApiObject,
): void {
  const { resource } = mount;
  const view = resource.views.rest;
  const model = resource.model.modelName;
  const tag = model;
  const collection = mount.path;
  const item = `${mount.path}/{id}`;
  const limited = source.rateLimited ? [429] : [];
  const has = (method: CrudMethod) => view.methods.has(method);
  const populate = populateParameter(view);
  const read = dataEnvelope(ref(names.document));

  if (has("list") || has("create")) paths[collection] ??= {};
  if (has("read") || has("update") || has("delete")) paths[item] ??= {};

  if (has("list")) {
    paths[collection].get = {
      tags: [tag],
      operationId: `list${names.list}`,
      summary: `List ${model} documents`,
      description:
        "Filters are query parameters: `field=value`, or `field[$op]=value` with an allowed operator. " +
        "`$or`/`$and` take indexed filters, e.g. `$or[0][title]=a&$or[1][priority][$gte]=3`. " +
        "Unknown fields and operators are refused with 400.",
      parameters: listParameters(resource, view),
      responses: {
        "200": json(ref(names.list), "A page of documents."),
        ...errors([400, 401, 403]),
      },
    };
  }
  if (has("create")) {
    paths[collection].post = {
      tags: [tag],
      operationId: `create${names.document}`,
      summary: `Create a ${model}`,
      parameters: populate ? [populate] : [],
      requestBody: {
        required: true,
        content: { "application/json": { schema: ref(names.create) } },
      },
      responses: {
        "201": json(read, "The created document."),
        ...errors([400, 401, 403, 409, ...limited]),
      },
    };
  }
  if (has("read")) {
    paths[item].get = {
      tags: [tag],
      operationId: `read${names.document}`,
      summary: `Read a ${model}`,
      parameters: [ID_PARAMETER, ...(populate ? [populate] : [])],
      responses: {
        "200": json(read, "The document."),
        ...errors([400, 401, 403, 404]),
      },
    };
  }
  if (has("update")) {
    const body = { schema: ref(names.update) };
    paths[item].patch = {
      tags: [tag],
      operationId: `update${names.document}`,
      summary: `Update a ${model}`,
      description:
        "A JSON Merge Patch (RFC 7396): fields given are set, `null` removes an optional field, absent fields are left alone.",
      parameters: [ID_PARAMETER, ...(populate ? [populate] : [])],
      requestBody: {
        required: true,
        content: { "application/merge-patch+json": body, "application/json": body },
      },
      responses: {
        "200": json(read, "The updated document."),
        ...errors([400, 401, 403, 404, 409, ...limited]),
      },
    };
  }
  if (has("delete")) {
    paths[item].delete = {
      tags: [tag],
      operationId: `delete${names.document}`,
      summary: `Delete a ${model}`,
      parameters: [ID_PARAMETER],
      responses: {
        "204": { description: "Deleted." },
        ...errors([401, 403, 404, ...limited]),
      },
    };
  }
  actionOperations(mount, names, source, paths);
}

/**
 * Model actions (CrudOptions.actions): `POST /<path>/{id}/<name>` for an instance action,
 * `POST /<path>/<name>` for a collection one, with the zod input's portable JSON Schema (the
 * same one the action's tool advertises) as the body, answering `{data}`.
 */
function actionOperations(
  mount: MountedResource,
  names: Names,
  source: OpenApiSource,
  paths: OpenApiObject,
): void {
  const { resource } = mount;
  const model = resource.model.modelName;
  for (const [name, config] of Object.entries(resource.options.actions ?? {})) {
    const where = `action ${model}.${name}`;
    const instance = config.scope === "instance";
    const readOnly = config.annotations?.readOnlyHint === true;
    const limited = source.rateLimited && !readOnly ? [429] : [];
    const input: JsonSchema = config.input
      ? portableJsonSchema(config.input, `${where} input`)
      : { type: "object", properties: {}, additionalProperties: false };
    const output: JsonSchema = config.output
      ? portableJsonSchema(config.output, `${where} output`, "output")
      : { description: "The action's result (documents serialized as in reads)." };
    const operationName = name.replace(/_(.)/g, (_m, c: string) => c.toUpperCase());
    paths[instance ? `${mount.path}/{id}/${name}` : `${mount.path}/${name}`] = {
      post: {
        tags: [model],
        operationId: `${operationName}${instance ? names.document : names.list}`,
        // As the action's tool is titled: `complete` → "Complete Todo".
        summary:
          config.title ??
          `${name.charAt(0).toUpperCase()}${name.slice(1).replace(/_/g, " ")} ${model}`,
        description: config.description,
        parameters: instance ? [ID_PARAMETER] : [],
        requestBody: { required: false, content: { "application/json": { schema: input } } },
        responses: {
          "200": json(dataEnvelope(output), "The action's result."),
          ...errors([400, 401, 403, ...(instance ? [404] : []), 409, ...limited]),
        },
      },
    };
  }
}

/** `todos_stats` → `todosStats`; a name another operation already has gets a `Tool` suffix. */
function toolOperationId(name: string, paths: OpenApiObject): string {
  const base = name.replace(/_(.)/g, (_m, c: string) => c.toUpperCase());
  const taken = new Set<string>();
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item as OpenApiObject)) {
      if (typeof operation?.operationId === "string") taken.add(operation.operationId);
    }
  }
  let id = base;
  for (let n = 2; taken.has(id); n++) id = n === 2 ? `${base}Tool` : `${base}Tool${n}`;
  return id;
}

/**
 * Custom tools (`app.tool(...)`): `POST /tools/<name>` with the tool's input schema as the
 * body, answering its output schema: the same `{data}` object the MCP tool returns as
 * `structuredContent`. A tool the caller may not see answers 404 (401 when anonymous);
 * read-only tools spend no write points.
 */
function customToolOperations(source: OpenApiSource, paths: OpenApiObject): void {
  for (const tool of source.customTools ?? []) {
    const readOnly = tool.annotations.readOnlyHint === true;
    const limited = source.rateLimited && !readOnly ? [429] : [];
    paths[`/tools/${tool.name}`] = {
      post: {
        tags: ["Tools"],
        operationId: toolOperationId(tool.name, paths),
        summary: tool.title,
        description: tool.description,
        requestBody: {
          required: false,
          content: { "application/json": { schema: tool.inputSchema } },
        },
        responses: {
          "200": json(
            tool.outputSchema,
            "The tool's result: the object the MCP tool returns as structuredContent.",
          ),
          ...errors([400, 401, 403, 404, ...limited]),
        },
      },
    };
  }
}

function credentialsSchema(extra: readonly string[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    email: { type: "string", format: "email", maxLength: 254 },
    password: {
      type: "string",
      minLength: MIN_PASSWORD_LENGTH,
      description: `At least ${MIN_PASSWORD_LENGTH} characters, at most ${MAX_PASSWORD_BYTES} bytes in UTF-8.`,
    },
  };
  for (const field of extra) properties[field] = { type: "string" };
  return {
    type: "object",
    properties,
    required: ["email", "password"],
    additionalProperties: false,
  };
}

function authOperations(
  auth: NonNullable<OpenApiSource["auth"]>,
  source: OpenApiSource,
  paths: OpenApiObject,
  schemas: OpenApiObject,
): void {
  const tags = ["Auth"];
  const limited = source.rateLimited ? [429] : [];
  const tokens = json(dataEnvelope(ref("TokenPair")), "A new session's tokens.");
  schemas.TokenPair = {
    type: "object",
    properties: {
      token: { type: "string", description: "The access token (JWT): `Authorization: Bearer`." },
      refreshToken: { type: "string", description: "Single use: spend it at refresh_token." },
      userId: { type: "string" },
    },
    required: ["token", "refreshToken", "userId"],
  };
  const userSchema = `${componentName(auth.userModel.modelName)}Me`;
  const description = describeModel(auth.userModel);
  schemas[userSchema] = outputSchema(description, {
    hidden: createHiddenFields([], description),
  });
  const publicRoute = { security: [] as unknown[] };
  paths[`${auth.path}/signup`] = {
    post: {
      tags,
      operationId: "signup",
      summary: "Sign up",
      ...publicRoute,
      requestBody: {
        required: true,
        content: { "application/json": { schema: credentialsSchema(auth.signupFields) } },
      },
      responses: { "201": tokens, ...errors([400, 409, ...limited]) },
    },
  };
  paths[`${auth.path}/login`] = {
    post: {
      tags,
      operationId: "login",
      summary: "Log in",
      ...publicRoute,
      requestBody: {
        required: true,
        content: { "application/json": { schema: credentialsSchema([]) } },
      },
      responses: { "200": tokens, ...errors([400, 401, ...limited]) },
    },
  };
  paths[`${auth.path}/refresh_token`] = {
    post: {
      tags,
      operationId: "refreshToken",
      summary: "Exchange a refresh token for new tokens",
      ...publicRoute,
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              properties: { refreshToken: { type: "string" } },
              required: ["refreshToken"],
            },
          },
        },
      },
      responses: { "200": tokens, ...errors([400, 401, ...limited]) },
    },
  };
  paths[`${auth.path}/logout`] = {
    post: {
      tags,
      operationId: "logout",
      summary: "Sign out one session (with refreshToken) or all of the caller's sessions",
      requestBody: {
        required: false,
        content: {
          "application/json": {
            schema: {
              type: "object",
              properties: { refreshToken: { type: "string" } },
              additionalProperties: false,
            },
          },
        },
      },
      responses: { "204": { description: "Signed out." }, ...errors([400, 401, 403, ...limited]) },
    },
  };
  paths[`${auth.path}/password`] = {
    post: {
      tags,
      operationId: "changePassword",
      summary: "Change the password, revoke every session and start a new one",
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              properties: {
                currentPassword: { type: "string" },
                newPassword: credentialsSchema([]).properties?.password as JsonSchema,
              },
              required: ["currentPassword", "newPassword"],
              additionalProperties: false,
            },
          },
        },
      },
      responses: { "200": tokens, ...errors([400, 401, 403, ...limited]) },
    },
  };
  paths[`${auth.path}/me`] = {
    get: {
      tags,
      operationId: "me",
      summary: "The signed-in user",
      responses: {
        "200": json(dataEnvelope(ref(userSchema)), "The caller's user document."),
        ...errors([401]),
      },
    },
  };
  if (auth.personalTokens)
    personalTokenOperations(auth, auth.personalTokens, source, paths, schemas);
}

function personalTokenOperations(
  auth: NonNullable<OpenApiSource["auth"]>,
  options: NonNullable<NonNullable<OpenApiSource["auth"]>["personalTokens"]>,
  source: OpenApiSource,
  paths: OpenApiObject,
  schemas: OpenApiObject,
): void {
  const tags = ["Personal access tokens"];
  const limited = source.rateLimited ? [429] : [];
  const info = {
    id: { type: "string" },
    name: { type: "string" },
    scope: { type: "string", enum: ["read", "write"] },
    createdAt: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] },
    expiresAt: { type: "string", format: "date-time" },
    lastUsedAt: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] },
  };
  schemas.PersonalToken = {
    type: "object",
    properties: info,
    required: ["id", "name", "scope", "expiresAt"],
  };
  schemas.NewPersonalToken = {
    type: "object",
    properties: {
      id: info.id,
      name: info.name,
      scope: info.scope,
      expiresAt: info.expiresAt,
      token: { type: "string", description: "The token (`tmcp_…`), shown this once." },
    },
    required: ["id", "name", "scope", "expiresAt", "token"],
  };
  paths[`${auth.path}/tokens`] = {
    post: {
      tags,
      operationId: "createPersonalToken",
      summary: "Create a personal access token (from a signed-in session only)",
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              properties: {
                name: { type: "string", minLength: 1, maxLength: 100 },
                scope: info.scope,
                expiresInDays: {
                  type: "integer",
                  minimum: 1,
                  maximum: options.maxExpiresInDays,
                  default: options.defaultExpiresInDays,
                },
              },
              required: ["name", "scope"],
              additionalProperties: false,
            },
          },
        },
      },
      responses: {
        "201": json(dataEnvelope(ref("NewPersonalToken")), "The new token."),
        ...errors([400, 401, 403, 409, ...limited]),
      },
    },
    get: {
      tags,
      operationId: "listPersonalTokens",
      summary: "The caller's unexpired tokens, without their values",
      responses: {
        "200": json(
          dataEnvelope({ type: "array", items: ref("PersonalToken") }),
          "The caller's tokens.",
        ),
        ...errors([401]),
      },
    },
  };
  paths[`${auth.path}/tokens/{id}`] = {
    delete: {
      tags,
      operationId: "deletePersonalToken",
      summary: "Revoke one of the caller's tokens",
      parameters: [{ ...ID_PARAMETER, description: "The token's id." }],
      responses: { "204": { description: "Revoked." }, ...errors([401, 403, 404]) },
    },
  };
}

/** Builds the whole document. Pure: the same source gives the same document. */
export function buildOpenApiDocument(source: OpenApiSource): OpenApiObject {
  const paths: OpenApiObject = {};
  const schemas: OpenApiObject = { Error: errorBodySchema() };
  const used = new Set<string>();
  for (const mount of source.mounts) {
    const { resource } = mount;
    let base = componentName(resource.model.modelName);
    // Two routers on one model (or same-named models) get distinct components.
    for (let n = 2; used.has(base); n++) base = `${componentName(resource.model.modelName)}${n}`;
    used.add(base);
    const names: Names = {
      document: base,
      create: `${base}Create`,
      update: `${base}Update`,
      list: `${base}List`,
    };
    const view = resource.views.rest;
    schemas[names.document] = outputSchema(resource.description, { hidden: view.hidden });
    if (view.methods.has("create")) schemas[names.create] = view.createSchema;
    if (view.methods.has("update")) schemas[names.update] = view.updateSchema;
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
    resourceOperations(mount, names, source, paths);
  }
  if (source.auth) authOperations(source.auth, source, paths, schemas);
  customToolOperations(source, paths);

  const securitySchemes: OpenApiObject = {};
  if (source.auth || source.bearer) {
    securitySchemes.bearerAuth = {
      type: "http",
      scheme: "bearer",
      bearerFormat: "JWT",
      description: source.auth
        ? `An access token from ${source.auth.path}/login or ${source.auth.path}/signup.`
        : "A bearer token accepted by the app's auth providers.",
    };
  }
  if (source.auth?.personalTokens) {
    securitySchemes.personalAccessToken = {
      type: "http",
      scheme: "bearer",
      bearerFormat: "tmcp_…",
      description: `A personal access token (\`tmcp_…\`, scope read or write) from POST ${source.auth.path}/tokens.`,
    };
  }

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
      responses: Object.fromEntries(
        ERROR_RESPONSES.map(([status, name]) => [name, errorResponse(status)]),
      ),
      ...(Object.keys(securitySchemes).length > 0 ? { securitySchemes } : {}),
    },
  };
  const schemeNames = Object.keys(securitySchemes);
  if (schemeNames.length > 0) {
    // Each scheme, or none: whether a route needs a caller is up to its permissions.
    document.security = [...schemeNames.map((name) => ({ [name]: [] })), {}];
  }
  const tags = [
    ...new Set(source.mounts.map((m) => m.resource.model.modelName)),
    ...(source.auth ? ["Auth"] : []),
    ...(source.auth?.personalTokens ? ["Personal access tokens"] : []),
    ...((source.customTools?.length ?? 0) > 0 ? ["Tools"] : []),
  ];
  document.tags = tags.map((name) => ({ name }));
  return document;
}
