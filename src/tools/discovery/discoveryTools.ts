/**
 * Discovery tools (`mcp: {discovery: true}`): `describe_models`, the models, fields and
 * relationships the caller can reach, and `whoami`, who the caller is. Ordinary tool
 * definitions with no resource: listed, validated, rate limited and answered through the
 * same pipeline as every other tool. Built once per app; filtered per caller per call.
 */
import { modelResource } from "../../core/present.js";
import type { Resource } from "../../core/resource.js";
import type { AnyModel, PlainObject, User } from "../../core/types.js";
import type { AccessRule } from "../../core/verdict.js";
import type { FieldDescriptor, JsonSchema } from "../../schema/types.js";
import { compileValidator } from "../../schema/validator.js";
import type { DiscoveryToolDefinition, ToolDefinition } from "../toolDefinitions.js";
import { toolResource } from "../toolKinds.js";
import { createToolCatalog } from "../visibleTools.js";
import { matchScore, queryTerms } from "./fuzzyMatch.js";
import { buildModelTemplates, type ModelEntry, modelsFor } from "./modelCatalog.js";

export interface DiscoveryOptions {
  /**
   * User fields `whoami` returns next to `userId`, `admin`, `authMethod` and `scopes`.
   * Default `["name"]`. Naming a field the user model's view hides (`select: false`, such as
   * `passwordHash`) or a reserved name fails at start-up.
   */
  whoamiFields?: string[];
}

const DESCRIBE_MODELS = "describe_models";
const WHOAMI = "whoami";
const DEFAULT_DESCRIBE_LIMIT = 20;
const MAX_DESCRIBE_LIMIT = 100;

const READ_ONLY = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;

/** Discovery tools read, and serve every signed-in caller (never anonymous ones). */
function discoveryAccess(name: string): AccessRule {
  return { method: name, write: false, anonymous: false, permissions: [() => true] };
}

const FIELD_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    name: { type: "string", description: "Dotted for nested fields, e.g. `address.city`." },
    type: {
      type: "string",
      description: "string, number, boolean, date, objectId, object, map, mixed; `[]` for arrays.",
    },
    required: { type: "boolean" },
    enum: { type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] } },
    ref: { type: "string", description: "The model an objectId points at." },
    unique: { type: "boolean", description: "No two records share this value." },
    description: { type: "string" },
  },
  required: ["name", "type", "required"],
  additionalProperties: false,
};

const MODELS_OUTPUT: JsonSchema = {
  type: "object",
  properties: {
    models: {
      type: "array",
      items: {
        type: "object",
        properties: {
          name: { type: "string" },
          description: { type: "string" },
          tools: { type: "array", items: { type: "string" } },
          fields: { type: "array", items: FIELD_SCHEMA },
          relationships: {
            type: "array",
            items: {
              type: "object",
              properties: {
                relationship: { type: "string", enum: ["BELONGS_TO", "HAS_MANY"] },
                target: { type: "string" },
                property: { type: "string" },
              },
              required: ["relationship", "target", "property"],
              additionalProperties: false,
            },
          },
          uniqueTogether: {
            type: "array",
            description: "Sets of fields no two records share all of.",
            items: { type: "array", items: { type: "string" } },
          },
          workspaceField: {
            type: "string",
            description:
              "Set when the model is scoped by workspace: the field holding each record's workspace. Its tools see and change only the current workspace's records (whoami names it) and set this field themselves.",
          },
        },
        required: ["name", "description", "tools", "fields", "relationships"],
        additionalProperties: false,
      },
    },
  },
  required: ["models"],
  additionalProperties: false,
};

const MODELS_INPUT: JsonSchema = {
  type: "object",
  properties: {
    query: {
      type: "string",
      maxLength: 200,
      description:
        "Words to match, fuzzily, against model and field names. At most 200 characters. Omit for every model.",
    },
    limit: {
      type: "integer",
      minimum: 1,
      maximum: MAX_DESCRIBE_LIMIT,
      description: `How many models to return, 1 to ${MAX_DESCRIBE_LIMIT}. Default ${DEFAULT_DESCRIBE_LIMIT}.`,
    },
  },
  additionalProperties: false,
};

/** The model's score for a query: every term's best match on its name or a field's name. */
function scoreModel(model: ModelEntry, terms: readonly string[]): number {
  let total = 0;
  for (const term of terms) {
    let best = matchScore(term, model.name);
    for (const field of model.fields) {
      // A field match ranks below the same match on a model name.
      best = Math.max(best, matchScore(term, field.name) * 0.8);
      const leaf = field.name.slice(field.name.lastIndexOf(".") + 1);
      if (leaf !== field.name) best = Math.max(best, matchScore(term, leaf) * 0.8);
    }
    total += best;
  }
  return total;
}

function search(models: readonly ModelEntry[], query: unknown, limit: number): ModelEntry[] {
  const terms = typeof query === "string" ? queryTerms(query) : [];
  if (terms.length === 0) return models.slice(0, limit);
  return models
    .map((model) => ({ model, score: scoreModel(model, terms) }))
    .filter((scored) => scored.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, limit)
    .map((scored) => scored.model);
}

/** `describe_models` over the app's tool definitions (those of a model). */
function describeModelsTool(
  resources: readonly Resource[],
  tools: readonly ToolDefinition[],
): DiscoveryToolDefinition {
  const modelTools = tools.filter((tool) => toolResource(tool) !== undefined);
  const templates = buildModelTemplates(
    resources.filter((resource) => modelTools.some((tool) => toolResource(tool) === resource)),
  );
  // One answer per distinct set of visible tools, as `tools/list` does.
  const modelsOf = createToolCatalog(modelTools, (visible) =>
    modelsFor(
      templates,
      visible.map((tool) => ({
        name: tool.name,
        model: toolResource(tool)?.model.modelName ?? "",
      })),
    ),
  );
  const title = "Describe models";
  return {
    kind: "discovery",
    name: DESCRIBE_MODELS,
    title,
    description:
      "The data models you can work with: for each, its tools, fields (type, required, enum values, which model an id points at, unique) and relationships (BELONGS_TO: this model's field holds the other's id; HAS_MANY: the other model's field holds this one's id). Filter with `query` (fuzzy, on model and field names) before calling the model tools.",
    inputSchema: MODELS_INPUT,
    outputSchema: MODELS_OUTPUT,
    annotations: { title, ...READ_ONLY },
    validate: compileValidator(MODELS_INPUT),
    access: discoveryAccess(DESCRIBE_MODELS),
    handler: async (args, ctx) => {
      const models = await modelsOf(ctx.user, ctx.workspace);
      const limit = typeof args.limit === "number" ? args.limit : DEFAULT_DESCRIBE_LIMIT;
      return { models: search(models, args.query, limit) };
    },
  };
}

const RESERVED = new Set([
  "userId",
  "admin",
  "authMethod",
  "scopes",
  "id",
  "_id",
  "workspace",
  "memberships",
]);

const WORKSPACE_SCHEMA: JsonSchema = {
  type: "object",
  properties: { id: { type: "string" }, name: { type: "string" }, role: { type: "string" } },
  required: ["id", "name", "role"],
  additionalProperties: false,
};

function userFieldSchema(field: FieldDescriptor | undefined): JsonSchema {
  switch (field?.kind) {
    case "string":
    case "objectId":
      return { type: "string" };
    case "number":
      return { type: "number" };
    case "boolean":
      return { type: "boolean" };
    case "date":
      return { type: "string", format: "date-time" };
    default:
      return {};
  }
}

/**
 * The user fields `whoami` may return: the listed ones, each checked against the user model's
 * own tools view (what its schema hides, `select: false`), the one rule for hidden fields.
 */
function whoamiFieldsOf(fields: readonly string[], userModel: AnyModel | undefined) {
  const user = userModel ? modelResource(userModel) : undefined;
  const allowed: Array<{ name: string; schema: JsonSchema }> = [];
  for (const name of fields) {
    if (RESERVED.has(name)) {
      throw new Error(
        `terreno-mcp: whoamiFields may not name "${name}": whoami returns it already.`,
      );
    }
    if (user?.views.tools.hidden.isHidden(name)) {
      throw new Error(
        `terreno-mcp: whoamiFields may not name "${name}": the user model hides it (select: false).`,
      );
    }
    allowed.push({ name, schema: userFieldSchema(user?.description.byPath.get(name)) });
  }
  return allowed;
}

function plainValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (value && typeof value === "object" && "toHexString" in value) return String(value);
  return value;
}

/** `whoami`: who the caller is, with the user fields the app chose to show. */
function whoamiTool(options: DiscoveryOptions, userModel?: AnyModel): DiscoveryToolDefinition {
  const fields = whoamiFieldsOf(options.whoamiFields ?? ["name"], userModel);
  const outputSchema: JsonSchema = {
    type: "object",
    properties: {
      userId: { type: "string" },
      admin: { type: "boolean" },
      authMethod: {
        type: "string",
        description:
          "How the caller signed in: jwt, pat, oauth, better-auth, or a provider's name.",
      },
      scopes: {
        type: "array",
        items: { type: "string" },
        description: "The credential's scopes; absent for a session (full access).",
      },
      workspace: {
        anyOf: [WORKSPACE_SCHEMA, { type: "null" }],
        description:
          "The workspace your calls act in (when the app has workspaces); null when none is chosen: send the X-Workspace-Id header or use a token bound to one.",
      },
      memberships: {
        type: "array",
        items: WORKSPACE_SCHEMA,
        description: "Every workspace you are a member of, with your role there.",
      },
      ...Object.fromEntries(fields.map((field) => [field.name, field.schema])),
    },
    required: ["userId", "admin"],
    additionalProperties: false,
  };
  const inputSchema: JsonSchema = { type: "object", properties: {}, additionalProperties: false };
  const title = "Who am I";
  return {
    kind: "discovery",
    name: WHOAMI,
    title,
    description:
      "Who you are acting as: your user id, whether you are an admin, how you signed in, your token's scopes (absent: full access) and, when the app has workspaces, the workspace your calls act in and your memberships.",
    inputSchema,
    outputSchema,
    annotations: { title, ...READ_ONLY },
    validate: compileValidator(inputSchema),
    access: discoveryAccess(WHOAMI),
    handler: async (_args, ctx) => {
      const user = ctx.user as User;
      const out: PlainObject = { userId: user.id, admin: user.admin === true };
      if (typeof user.authMethod === "string") out.authMethod = user.authMethod;
      if (Array.isArray(user.scopes)) out.scopes = [...user.scopes];
      if (ctx.workspace) {
        out.workspace = await ctx.workspace.peek();
        out.memberships = (await ctx.workspace.memberships()).map((m) => ({
          id: m.workspaceId,
          name: m.name,
          role: m.role,
        }));
      }
      for (const { name } of fields) {
        // Configured field names, read off the user document's copy (toUser): not typed fields.
        const value = plainValue((user as unknown as PlainObject)[name]);
        if (value !== undefined && value !== null) out[name] = value;
      }
      return out;
    },
  };
}

/** Both discovery tools, for an app with `mcp.discovery` on. */
function discoveryTools(
  resources: readonly Resource[],
  tools: readonly ToolDefinition[],
  options: DiscoveryOptions,
  userModel?: AnyModel,
): DiscoveryToolDefinition[] {
  return [describeModelsTool(resources, tools), whoamiTool(options, userModel)];
}

/**
 * `tools` plus the discovery tools when `discovery` is on (`true` or options), sorted by name.
 * A model tool of the same name fails loudly at start-up, as any duplicate does.
 */
export function withDiscoveryTools(
  tools: ToolDefinition[],
  resources: readonly Resource[],
  discovery: boolean | DiscoveryOptions | undefined,
  userModel?: AnyModel,
): ToolDefinition[] {
  if (!discovery) return tools;
  const added = discoveryTools(resources, tools, discovery === true ? {} : discovery, userModel);
  for (const tool of added) {
    if (tools.some((other) => other.name === tool.name)) {
      throw new Error(
        `terreno-mcp: duplicate MCP tool name "${tool.name}": mcp.discovery adds a tool of this name. Rename the other tool (mcp.toolPrefix).`,
      );
    }
  }
  return [...tools, ...added].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
