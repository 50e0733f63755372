/**
 * Tool definitions for every opted-in model, built once at start-up and shared by the MCP
 * endpoint and the AI SDK adapter: names, descriptions, annotations, input and output
 * schemas, and compiled argument validators.
 */

import { crudAccess } from "../core/authorize.js";
import type { Resource } from "../core/resource.js";
import {
  CRUD_METHODS,
  type CrudMethod,
  type PlainObject,
  type RequestContext,
} from "../core/types.js";
import type { AccessRule } from "../core/verdict.js";
import { VERSION_FIELD, versionKey } from "../core/versions.js";
import { OBJECT_ID_PATTERN } from "../schema/fieldSchema.js";
import type { JsonSchema } from "../schema/types.js";
import { compileValidator, type Validator } from "../schema/validator.js";
import { describeTool, toolTitle } from "./describeTool.js";
import { listInputSchema, populateSchema } from "./listInputSchema.js";
import { toolName } from "./naming.js";
import { toolOutputSchema } from "./outputSchemas.js";

export interface ToolAnnotations {
  title: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint: boolean;
}

/**
 * What a tool is, the one discriminant: a model's CRUD method (`todos_list`), a model's action
 * (`todos_complete`), a custom tool (`app.tool(...)`), or a discovery tool (`describe_models`,
 * `whoami`). What differs between kinds is answered once, in src/tools/toolKinds.ts.
 */
export type ToolKind = "crud" | "action" | "custom" | "discovery";

interface ToolDefinitionBase {
  kind: ToolKind;
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: ToolAnnotations;
  /**
   * Who may see and call it: the one verdict's rule (src/core/verdict.ts), the same object the
   * operation the tool runs is judged by, so a call is judged once.
   */
  access: AccessRule;
  /**
   * Checks the call's parameters (list, read, delete; a handler tool's whole input). Bodies of
   * create and update are checked once, by the core, against the same view schema this tool
   * advertises.
   */
  validate?: Validator;
  /**
   * The question to ask the person before the call runs, when the client can ask them
   * (MCP elicitation; `mcp.confirm`, an action's `confirm`). Absent: no confirmation.
   */
  confirm?: string;
}

/** A model's CRUD tool: runs the core operation `method` on `resource`. */
export interface CrudToolDefinition extends ToolDefinitionBase {
  kind: "crud";
  method: CrudMethod;
  resource: Resource;
}

/**
 * A tool that runs its own `handler` with the checked input, through the same pipeline
 * (visibility, validation, rate limits, the one error table).
 */
interface HandlerToolBase extends ToolDefinitionBase {
  /** Only CRUD tools have a method (so `tool.method === "list"` reads any tool). */
  method?: undefined;
  handler: (input: PlainObject, ctx: RequestContext) => Promise<PlainObject>;
}

/** A model's action (`todos_complete`): runs the core's action operation. */
export interface ActionToolDefinition extends HandlerToolBase {
  kind: "action";
  /** The action's model (Todo), for its router's rate limit and for docs. */
  resource: Resource;
  /** The action's name (`complete`) and scope. */
  action: { name: string; scope: "instance" | "collection" };
}

/** A custom tool added with `app.tool(...)`. */
export interface CustomToolDefinition extends HandlerToolBase {
  kind: "custom";
}

/** A discovery tool (`describe_models`, `whoami`; `mcp: {discovery: true}`). */
export interface DiscoveryToolDefinition extends HandlerToolBase {
  kind: "discovery";
}

export type ToolDefinition =
  | CrudToolDefinition
  | ActionToolDefinition
  | CustomToolDefinition
  | DiscoveryToolDefinition;

const ID_SCHEMA: JsonSchema = {
  type: "string",
  pattern: OBJECT_ID_PATTERN,
  description: "24 hex characters.",
};

/**
 * The `version` an update or delete may send (src/core/versions.ts): required on a router with
 * `requireVersion`, absent on a model without versions.
 */
function versionInput(resource: Resource): {
  properties: Record<string, JsonSchema>;
  required: string[];
} {
  if (versionKey(resource) === undefined) return { properties: {}, required: [] };
  return {
    properties: {
      [VERSION_FIELD]: {
        type: "integer",
        minimum: 0,
        description: "The version you read. Changed since: conflict, nothing written.",
      },
    },
    required: resource.options.requireVersion ? [VERSION_FIELD] : [],
  };
}

function inputSchemaFor(resource: Resource, method: CrudMethod): JsonSchema {
  const view = resource.views.tools;
  const populate = populateSchema(resource);
  switch (method) {
    case "list":
      return listInputSchema(resource);
    case "read":
      return {
        type: "object",
        properties: populate ? { id: ID_SCHEMA, populate } : { id: ID_SCHEMA },
        required: ["id"],
        additionalProperties: false,
      };
    case "create":
      return view.createSchema;
    case "update": {
      const version = versionInput(resource);
      return {
        type: "object",
        properties: { id: ID_SCHEMA, ...view.updateSchema.properties, ...version.properties },
        required: ["id", ...version.required],
        additionalProperties: false,
      };
    }
    case "delete": {
      const version = versionInput(resource);
      return {
        type: "object",
        properties: { id: ID_SCHEMA, ...version.properties },
        required: ["id", ...version.required],
        additionalProperties: false,
      };
    }
  }
}

const BODY_METHODS: ReadonlySet<CrudMethod> = new Set(["create", "update"]);

/** The list tool shares the view's validator (compiled once, `$or`/`$and` branches included). */
function validatorFor(resource: Resource, method: CrudMethod, inputSchema: JsonSchema): Validator {
  const listInput = resource.views.tools.listInput;
  return method === "list" && listInput ? listInput.validate : compileValidator(inputSchema);
}

const ANNOTATIONS: Record<CrudMethod, Omit<ToolAnnotations, "title">> = {
  list: { readOnlyHint: true, openWorldHint: false },
  read: { readOnlyHint: true, openWorldHint: false },
  create: { destructiveHint: false, openWorldHint: false },
  update: { idempotentHint: true, openWorldHint: false },
  delete: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
};

export function toolDefinitionsFor(resource: Resource): CrudToolDefinition[] {
  const config = resource.options.mcp;
  if (!config) return [];
  // The tools view holds the methods that are both opted in and enabled.
  return CRUD_METHODS.filter((method) => resource.views.tools.methods.has(method)).map((method) => {
    const inputSchema = inputSchemaFor(resource, method);
    const title = toolTitle(resource, method);
    return {
      kind: "crud",
      name: toolName({ kind: "crud", resource, name: method }),
      title,
      description: describeTool(resource, method, inputSchema),
      method,
      resource,
      inputSchema,
      outputSchema: toolOutputSchema(resource, method),
      annotations: { title, ...ANNOTATIONS[method] },
      access: crudAccess(resource, resource.views.tools, method),
      ...(config.confirm?.includes(method as "delete") ? { confirm: `${title}?` } : {}),
      ...(BODY_METHODS.has(method)
        ? {}
        : { validate: validatorFor(resource, method, inputSchema) }),
    };
  });
}

/** All tools of these resources, sorted by name; duplicate names fail loudly at start-up. */
export function buildToolDefinitions(resources: readonly Resource[]): CrudToolDefinition[] {
  const byName = new Map<string, CrudToolDefinition>();
  for (const resource of resources) {
    for (const tool of toolDefinitionsFor(resource)) {
      const existing = byName.get(tool.name);
      if (existing) {
        throw new Error(
          `terreno-mcp: duplicate MCP tool name "${tool.name}" (models ${existing.resource.model.modelName} and ${resource.model.modelName}). Give one of them a different mcp.toolPrefix.`,
        );
      }
      byName.set(tool.name, tool);
    }
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
