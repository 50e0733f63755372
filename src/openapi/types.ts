/**
 * What the OpenAPI document is built from (an app's routers, auth routes and custom tools) and
 * the open JSON type the builders produce. Kept apart so every builder file shares one
 * vocabulary without importing the document assembler.
 */

import type { Resource } from "../core/resource.js";
import type { AnyModel } from "../core/types.js";
import type { JsonSchema } from "../schema/types.js";

// biome-ignore lint/suspicious/noExplicitAny: OpenAPI objects are open JSON.
export type OpenApiObject = Record<string, any>;

interface OpenApiInfo {
  title?: string;
  version?: string;
  description?: string;
}

/**
 * A custom tool (`app.tool(...)`, served at `POST /tools/<name>`): what the document reads of
 * its tool definition.
 */
interface DocumentedTool {
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

/** The JWT routes' part of the source. */
export interface DocumentedAuth {
  /** Default `/auth`. */
  path: string;
  userModel: AnyModel;
  signupFields: readonly string[];
  /** Personal access token routes at `<path>/tokens`. */
  personalTokens?: DocumentedPersonalTokens;
}

export interface DocumentedPersonalTokens {
  maxExpiresInDays: number;
  defaultExpiresInDays: number;
}

export interface OpenApiSource {
  info?: OpenApiInfo;
  mounts: readonly MountedResource[];
  /** The JWT routes, when the app serves them. */
  auth?: DocumentedAuth;
  /** Other bearer providers (Better Auth, external JWTs) accept `Authorization: Bearer`. */
  bearer?: boolean;
  /** Whether 429 answers are possible (the app's rate limits are on). */
  rateLimited?: boolean;
  /** The custom tools, each documented as `POST /tools/<name>`. */
  customTools?: readonly DocumentedTool[];
  /** The plugins' own routes (TerrenoPlugin.openApi). */
  contributions?: readonly OpenApiContribution[];
}

/** `TerrenoAppOptions.openapi`: where the document and the docs page are served, and `info`. */
export interface OpenApiOptions {
  /** Where the document is served. Default `/openapi.json`. */
  path?: string;
  /** Where the API reference UI is served; `false` serves none. Default `/docs`. */
  docsPath?: string | false;
  /** `info.title`. Default: the MCP server name, else `"API"`. */
  title?: string;
  /** `info.version`. Default: the MCP server version, else `"0.0.0"`. */
  version?: string;
  /** `info.description` (Markdown). */
  description?: string;
}

/** Open JSON of a part of an OpenAPI 3.1 document: a path item, an operation, a schema. */
export type OpenApiJson = { [key: string]: unknown };

/** What a plugin adds to `/openapi.json` (TerrenoPlugin.openApi). */
export interface OpenApiContribution {
  /**
   * Path items by path as OpenAPI writes them (`/chat/conversations/{id}`, not `:id`). A method
   * the document has already (a router's) is kept; the plugin's is dropped.
   */
  paths: Record<string, OpenApiJson>;
  /** Component schemas the paths reference as `#/components/schemas/<name>`; taken names are kept. */
  schemas?: Record<string, OpenApiJson>;
  /** The tags the operations use, added to the document's list in this order. */
  tags?: ReadonlyArray<{ name: string; description?: string }>;
  /**
   * Security schemes only the plugin's own operations name in their `security` (e.g. an OAuth
   * client's Basic credentials); taken names are kept, and they join no other route's security.
   */
  securitySchemes?: Record<string, OpenApiJson>;
}

/** What the OpenAPI plugin hands `TerrenoPlugin.openApi`, so its operations read like the rest. */
export interface OpenApiHelpers {
  /**
   * An operation's error responses: status → `$ref` to the document's shared error responses
   * (400, 401, 403, 404, 405, 409, 429; each the one `Error` body).
   */
  errors(statuses: readonly number[]): OpenApiJson;
  /** Whether the app's rate limits are on, so a route that spends points may answer 429. */
  rateLimited: boolean;
  /** The security requirement of a route that needs a signed-in caller (`[]` when none is set up). */
  security: ReadonlyArray<Record<string, string[]>>;
}
