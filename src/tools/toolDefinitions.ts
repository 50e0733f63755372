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
import { OBJECT_ID_PATTERN } from "../schema/fieldSchema.js";
import type { JsonSchema } from "../schema/types.js";
import { compileValidator, type Validator } from "../schema/validator.js";
import { describeTool, toolTitle } from "./describeTool.js";
import { listInputSchema, populateSchema } from "./listInputSchema.js";
import { defaultToolPrefix, toolName } from "./naming.js";
import { toolOutputSchema } from "./outputSchemas.js";

export interface ToolAnnotations {
  title: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint: boolean;
}

interface ToolDefinitionBase {
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

/** A model's CRUD tool: runs a core operation on `resource`. */
export interface ResourceToolDefinition extends ToolDefinitionBase {
  kind?: "resource";
  method: CrudMethod;
  resource: Resource;
  handler?: undefined;
}

/**
 * A tool with no resource of its own (discovery tools: `describe_models`, `whoami`; custom
 * tools): runs `handler` with the checked input, through the same pipeline (visibility,
 * validation, rate limits, the one error table).
 */
export interface HandlerToolDefinition extends ToolDefinitionBase {
  kind: "handler";
  method?: undefined;
  /**
   * An action tool's model (`todos_complete`: Todo), for its router's rate limit and for
   * docs; absent for discovery and custom tools.
   */
  resource?: Resource;
  /** An action tool's action: its name (`complete`) and scope. */
  action?: { name: string; scope: "instance" | "collection" };
  /** A custom tool added with `app.tool(...)`. */
  custom?: true;
  /** A discovery tool (`describe_models`, `whoami`; `mcp: {discovery: true}`). */
  discovery?: true;
  handler: (input: PlainObject, ctx: RequestContext) => Promise<PlainObject>;
}

export type ToolDefinition = ResourceToolDefinition | HandlerToolDefinition;

const ID_SCHEMA: JsonSchema = {
  type: "string",
  pattern: OBJECT_ID_PATTERN,
  description: "24 hex characters.",
};

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
    case "update":
      return {
        type: "object",
        properties: { id: ID_SCHEMA, ...view.updateSchema.properties },
        required: ["id"],
        additionalProperties: false,
      };
    case "delete":
      return {
        type: "object",
        properties: { id: ID_SCHEMA },
        required: ["id"],
        additionalProperties: false,
      };
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

export function toolDefinitionsFor(resource: Resource): ResourceToolDefinition[] {
  const config = resource.options.mcp;
  if (!config) return [];
  const prefix = config.toolPrefix ?? defaultToolPrefix(resource.model.modelName);
  // The tools view holds the methods that are both opted in and enabled.
  return CRUD_METHODS.filter((method) => resource.views.tools.methods.has(method)).map((method) => {
    const inputSchema = inputSchemaFor(resource, method);
    const title = toolTitle(resource, method);
    return {
      name: toolName(prefix, method),
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
export function buildToolDefinitions(resources: readonly Resource[]): ResourceToolDefinition[] {
  const byName = new Map<string, ResourceToolDefinition>();
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
