/**
 * What `describe_models` tells about each model, built once per app from the tools view
 * (hidden fields never appear) and filtered per caller: a caller sees a model when it sees
 * at least one of its tools (the one visibility rule, src/tools/visibleTools.ts), and a
 * relationship only when it sees the model at the other end.
 */
import type { Resource } from "../../core/resource.js";
import type { FieldDescriptor } from "../../schema/types.js";

interface ModelField {
  name: string;
  type: string;
  required: boolean;
  enum?: Array<string | number>;
  ref?: string;
  /** Only when true: a lean catalog says nothing of the usual case. */
  unique?: true;
  description?: string;
}

interface ModelRelationship {
  relationship: "BELONGS_TO" | "HAS_MANY";
  target: string;
  /** BELONGS_TO: this model's field holding the ref; HAS_MANY: the target's field pointing here. */
  property: string;
}

export interface ModelEntry {
  name: string;
  description: string;
  tools: string[];
  fields: ModelField[];
  relationships: ModelRelationship[];
  /** Compound unique indexes (each a set of field names unique together), only when there are. */
  uniqueTogether?: string[][];
  /**
   * Set on a workspace-scoped model: the field holding each record's workspace. Its tools act in
   * the current workspace only, and set the field themselves.
   */
  workspaceField?: string;
}

/** An entry before the caller's tools are known. */
export type ModelTemplate = Omit<ModelEntry, "tools">;

function typeOf(field: FieldDescriptor): string {
  if (field.kind === "array" && field.items) return `${typeOf(field.items)}[]`;
  return field.kind;
}

function refOf(field: FieldDescriptor): string | undefined {
  return field.ref ?? field.items?.ref;
}

/** Documents leave every surface with `id` for `_id`, at any depth. */
function fieldName(path: string): string {
  return path === "_id" ? "id" : path.endsWith("._id") ? `${path.slice(0, -4)}.id` : path;
}

/**
 * The fields the tools view shows (its hidden fields: `select: false` and `mcp.excludeFields`),
 * nested ones as dotted names; `_id` is the tools' `id`, `__v` is internal.
 */
function fieldsOf(resource: Resource): ModelField[] {
  const { hidden } = resource.views.tools;
  const { description } = resource;
  const out: ModelField[] = [];
  const walk = (fields: Record<string, FieldDescriptor>) => {
    for (const field of Object.values(fields)) {
      const { path } = field;
      if (hidden.isHidden(path) || path.includes("$")) continue;
      if (path === "__v" || (field.system && path.endsWith("__v"))) continue;
      const ref = refOf(field);
      const values = field.enum ?? field.items?.enum;
      out.push({
        name: fieldName(path),
        type: typeOf(field),
        required: path === "_id" ? true : field.required,
        ...(values ? { enum: [...values] } : {}),
        ...(ref ? { ref } : {}),
        ...(field.unique && path !== "_id" ? { unique: true as const } : {}),
        ...(field.description ? { description: field.description } : {}),
      });
      if (field.properties) walk(field.properties);
      if (field.items?.properties) walk(field.items.properties);
    }
  };
  walk(description.fields);
  // The version key can be named otherwise; system fields other than `_id` and timestamps.
  const versionKey = description.systemFields.find(
    (name) => name !== "_id" && name !== "createdAt" && name !== "updatedAt",
  );
  return versionKey ? out.filter((f) => f.name !== versionKey) : out;
}

/** Compound unique indexes whose every field the tools view shows: naming one shows its fields. */
function uniqueTogetherOf(resource: Resource): string[][] {
  const { hidden } = resource.views.tools;
  return resource.description.uniqueIndexes
    .filter((fields) => fields.length > 1 && fields.every((path) => !hidden.isHidden(path)))
    .map((fields) => fields.map(fieldName));
}

function describeResource(resource: Resource): string {
  const own = resource.options.mcp?.description;
  if (own) return own;
  return `${resource.model.modelName} documents.`;
}

/**
 * One template per model, relationships included: BELONGS_TO from this model's refs, HAS_MANY
 * from refs in the other models that point here. Only refs in fields the tools view shows.
 */
export function buildModelTemplates(resources: readonly Resource[]): Map<string, ModelTemplate> {
  const templates = new Map<string, ModelTemplate>();
  for (const resource of resources) {
    const fields = fieldsOf(resource);
    const uniqueTogether = uniqueTogetherOf(resource);
    templates.set(resource.model.modelName, {
      name: resource.model.modelName,
      description: describeResource(resource),
      fields,
      relationships: fields.flatMap((field) =>
        field.ref
          ? [{ relationship: "BELONGS_TO" as const, target: field.ref, property: field.name }]
          : [],
      ),
      ...(uniqueTogether.length > 0 ? { uniqueTogether } : {}),
      ...(resource.options.workspace ? { workspaceField: resource.options.workspace } : {}),
    });
  }
  for (const template of templates.values()) {
    for (const belongs of template.relationships) {
      if (belongs.relationship !== "BELONGS_TO") continue;
      templates.get(belongs.target)?.relationships.push({
        relationship: "HAS_MANY",
        target: template.name,
        property: belongs.property,
      });
    }
  }
  return templates;
}

/**
 * The models a caller sees, given the tools it sees (name → model name): each with its tools,
 * and only the relationships whose other end it sees too.
 */
export function modelsFor(
  templates: ReadonlyMap<string, ModelTemplate>,
  visibleTools: ReadonlyArray<{ name: string; model: string }>,
): ModelEntry[] {
  const toolsByModel = new Map<string, string[]>();
  for (const { name, model } of visibleTools) {
    const names = toolsByModel.get(model) ?? [];
    names.push(name);
    toolsByModel.set(model, names);
  }
  const entries: ModelEntry[] = [];
  for (const [model, tools] of toolsByModel) {
    const template = templates.get(model);
    if (!template) continue;
    entries.push({
      name: template.name,
      description: template.description,
      tools: [...tools].sort(),
      fields: template.fields,
      relationships: template.relationships.filter((r) => toolsByModel.has(r.target)),
      ...(template.uniqueTogether ? { uniqueTogether: template.uniqueTogether } : {}),
      ...(template.workspaceField ? { workspaceField: template.workspaceField } : {}),
    });
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
