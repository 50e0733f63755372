/**
 * Tool definitions for a model's actions (`todos_complete`) and for custom tools
 * (`app.tool(name, spec)`), built once like the CRUD tools: the input JSON Schema from the
 * zod schema (portable subset, src/core/zodSchema.ts), annotations (default: a write), an
 * output schema (`{data}`), and an `execute` that runs the core operation. The zod schema is
 * the one validation, in the core.
 */

import type { ActionAnnotations, ActionConfig, CustomToolConfig } from "../core/actionTypes.js";
import { callerView } from "../core/callerView.js";
import { isWrite } from "../core/isWrite.js";
import { actionAccess, runAction } from "../core/operations/action.js";
import { customToolAccess, runCustomTool } from "../core/operations/customTool.js";
import type { Resource } from "../core/resource.js";
import { portableJsonSchema } from "../core/zodSchema.js";
import { withArticle } from "../schema/article.js";
import { OBJECT_ID_PATTERN } from "../schema/fieldSchema.js";
import type { JsonSchema } from "../schema/types.js";
import { toolName } from "./naming.js";
import type {
  ActionToolDefinition,
  CustomToolDefinition,
  ToolAnnotations,
  ToolDefinition,
} from "./toolDefinitions.js";
import { toolResource } from "./toolKinds.js";

const ID_SCHEMA: JsonSchema = {
  type: "string",
  pattern: OBJECT_ID_PATTERN,
  description: "The document's id: 24 hex characters.",
};

/** Any JSON value, each type named (what a result with no output schema may be). */
const ANY_DATA: JsonSchema = {
  anyOf: [
    { type: "object" },
    { type: "array" },
    { type: "string" },
    { type: "number" },
    { type: "boolean" },
    { type: "null" },
  ],
  description: "The result.",
};

function range(min: number | undefined, max: number | undefined, unit: string): string {
  if (min !== undefined && max !== undefined) return `${min} to ${max}${unit}`;
  if (max !== undefined) return `at most ${max}${unit}`;
  if (min !== undefined) return `at least ${min}${unit}`;
  return "";
}

/**
 * The constraints some providers strip from a schema (lengths, ranges, patterns, choices),
 * repeated in the description for the top-level inputs; the server enforces them anyway.
 */
function inputNotes(schema: JsonSchema): string {
  const notes: string[] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (name === "id") continue;
    const parts: string[] = [];
    for (const branch of property.anyOf ?? [property]) {
      if (branch.enum) parts.push(`one of ${branch.enum.map((v) => JSON.stringify(v)).join("/")}`);
      if (branch.type === "string") parts.push(range(branch.minLength, branch.maxLength, " chars"));
      if (branch.type === "number" || branch.type === "integer") {
        parts.push(range(branch.minimum, branch.maximum, ""));
      }
      if (branch.pattern) parts.push(`matching ${branch.pattern}`);
    }
    const text = parts.filter(Boolean).join(", ");
    if (text) notes.push(`${name}: ${text}`);
  }
  return notes.length > 0 ? ` Input: ${notes.join("; ")}.` : "";
}

/** `complete_all` → `Complete all`. */
function titleOf(name: string): string {
  const words = name.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function annotationsOf(title: string, given: ActionAnnotations | undefined): ToolAnnotations {
  const readOnly = !isWrite({ annotations: given });
  return {
    title,
    readOnlyHint: readOnly,
    ...(readOnly ? {} : { destructiveHint: given?.destructiveHint ?? false }),
    ...(given?.idempotentHint !== undefined ? { idempotentHint: given.idempotentHint } : {}),
    openWorldHint: given?.openWorldHint ?? false,
  };
}

function inputSchemaOf(
  config: { input?: ActionConfig["input"]; allowUnknownKeys?: boolean },
  where: string,
): JsonSchema {
  if (!config.input) return { type: "object", properties: {}, additionalProperties: false };
  return portableJsonSchema(config.input, `${where} input`, "input", {
    closed: config.allowUnknownKeys !== true,
  });
}

function outputSchemaOf(config: { output?: ActionConfig["output"] }, where: string): JsonSchema {
  const data = config.output
    ? portableJsonSchema(config.output, `${where} output`, "output")
    : ANY_DATA;
  return {
    type: "object",
    properties: { data },
    required: ["data"],
    additionalProperties: false,
  };
}

function actionToolDefinitions(resource: Resource): ActionToolDefinition[] {
  if (!resource.options.mcp) return [];
  const actions = resource.options.actions ?? {};
  return Object.entries(actions).map(([name, config]) => {
    const where = `action ${resource.model.modelName}.${name}`;
    const input = inputSchemaOf(config, where);
    const instance = config.scope === "instance";
    const inputSchema: JsonSchema = instance
      ? {
          ...input,
          type: "object",
          properties: { id: ID_SCHEMA, ...(input.properties ?? {}) },
          required: ["id", ...(input.required ?? []).filter((key) => key !== "id")],
        }
      : input;
    const title = config.title ?? `${titleOf(name)} ${resource.model.modelName}`;
    return {
      name: toolName({ kind: "action", resource, name }),
      kind: "action",
      title,
      description: `${config.description}${
        instance ? ` Takes the id of ${withArticle(resource.model.modelName)} you can read.` : ""
      }${inputNotes(input)}`,
      action: { name, scope: config.scope },
      resource,
      inputSchema,
      outputSchema: outputSchemaOf(config, where),
      annotations: annotationsOf(title, config.annotations),
      access: actionAccess(resource, resource.views.tools, name, config),
      ...(config.confirm
        ? { confirm: typeof config.confirm === "string" ? config.confirm : `${title}?` }
        : {}),
      // The runner judged the call (`access`) before the handler runs: no second verdict.
      handler: async (args, ctx) => {
        const view = await callerView(resource, ctx);
        if (!instance) return { data: await runAction(resource, view, ctx, name, { input: args }) };
        const { id, ...rest } = args;
        return { data: await runAction(resource, view, ctx, name, { id, input: rest }) };
      },
    } satisfies ActionToolDefinition;
  });
}

/** The definition of `app.tool(name, config)`. */
export function customToolDefinition(name: string, config: CustomToolConfig): CustomToolDefinition {
  toolName({ kind: "custom", name });
  const where = `custom tool ${name}`;
  const title = config.title ?? titleOf(name);
  const inputSchema = inputSchemaOf(config, where);
  return {
    name,
    kind: "custom",
    title,
    description: `${config.description}${inputNotes(inputSchema)}`,
    inputSchema,
    outputSchema: outputSchemaOf(config, where),
    annotations: annotationsOf(title, config.annotations),
    access: customToolAccess(name, config),
    // The runner judged the call (`access`) before the handler runs: no second verdict.
    handler: async (args, ctx) => ({ data: await runCustomTool(name, config, ctx, args) }),
  };
}

/**
 * The app's whole catalog: the CRUD tools (and any others already built), every MCP-enabled
 * router's action tools, and the custom tools, sorted by name; a duplicate name fails at
 * start-up.
 */
export function withActionAndCustomTools(
  tools: readonly ToolDefinition[],
  resources: readonly Resource[],
  custom: readonly ToolDefinition[],
): ToolDefinition[] {
  const byName = new Map<string, ToolDefinition>();
  const owner = (tool: ToolDefinition) => {
    const resource = toolResource(tool);
    return resource ? `model ${resource.model.modelName}` : "a tool with no model";
  };
  const all = [...tools, ...resources.flatMap(actionToolDefinitions), ...custom];
  for (const tool of all) {
    const existing = byName.get(tool.name);
    if (existing) {
      throw new Error(
        `terreno-mcp: duplicate MCP tool name "${tool.name}" (${owner(existing)} and ${owner(tool)}). Rename the action or tool, or set mcp.toolPrefix.`,
      );
    }
    byName.set(tool.name, tool);
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
