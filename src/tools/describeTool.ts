/**
 * Titles and descriptions a model reads to pick and call a tool. Each is read from the tools
 * view: read and list name the fields a caller sees; create and update name only the fields
 * the caller may write, read from the very schema the core validates bodies with, with the
 * ranges, choices and lengths providers may strip from that schema. The list tool's filter,
 * sort and paging rules live on its input schema's properties, so they are not repeated here.
 */
import type { Resource } from "../core/resource.js";
import type { CrudMethod } from "../core/types.js";
import { withArticle } from "../schema/article.js";
import type { FieldDescriptor, JsonSchema } from "../schema/types.js";

function typeLabel(field: FieldDescriptor): string {
  if (field.kind === "objectId") return field.ref ? `${field.ref} id` : "id";
  if (field.kind === "array") return field.items ? `list of ${typeLabel(field.items)}` : "list";
  if (field.enum) return `one of ${field.enum.join("/")}`;
  if (field.kind === "mixed") return "any JSON value";
  return field.kind;
}

/** What the model reads back: every visible, non-system field by type, objects one level deep. */
function visibleFieldSummary(resource: Resource): string {
  const { hidden } = resource.views.tools;
  const visible = (fields: Record<string, FieldDescriptor>) =>
    Object.entries(fields).filter(([, field]) => !hidden.isHidden(field.path) && !field.system);
  const parts = visible(resource.description.fields).map(([name, field]) => {
    const children = field.kind === "object" ? visible(field.properties ?? {}) : [];
    const inner = children.map(([child, f]) => `${child} ${typeLabel(f)}`).join(", ");
    return `${name} (${inner ? `object: ${inner}` : typeLabel(field)})`;
  });
  return parts.length > 0 ? `Fields: ${parts.join(", ")}.` : "";
}

function range(min: number | undefined, max: number | undefined, unit: string): string {
  if (min !== undefined && max !== undefined) return `${min} to ${max}${unit}`;
  if (max !== undefined) return `≤${max}${unit}`;
  if (min !== undefined) return `≥${min}${unit}`;
  return "";
}

/** The branches of an `anyOf` other than null (a nullable value, or a date-time-or-date). */
function valueBranches(schema: JsonSchema): JsonSchema[] {
  return schema.anyOf ? schema.anyOf.filter((branch) => branch.type !== "null") : [schema];
}

/**
 * The rules of one written value in a few words: choices, range, length, default, and the
 * fields of an object one level down. Types are left to the schema, which states them; these
 * are the keywords some providers strip from it.
 */
function writeNotes(schema: JsonSchema, nested: boolean): string[] {
  const notes: string[] = [];
  for (const s of valueBranches(schema)) {
    if (s.enum) notes.push(s.enum.join("/"));
    if (s.type === "string") notes.push(range(s.minLength, s.maxLength, " chars"));
    if (s.type === "number" || s.type === "integer") notes.push(range(s.minimum, s.maximum, ""));
    if (s.type === "array" && s.items) {
      // List items are opened like the object holding the list: one level below the top.
      const each = writeNotes(s.items, nested).join(", ");
      if (each) notes.push(`each ${each}`);
    }
    if (s.type === "object" && s.properties && nested) notes.push(fieldList(s, false));
  }
  if (schema.default !== undefined) notes.push(`default ${JSON.stringify(schema.default)}`);
  return notes.filter(Boolean);
}

function fieldList(schema: JsonSchema, nested: boolean): string {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {})
    .filter(([, property]) => !property.readOnly)
    .map(([name, property]) => {
      const notes = [...(required.has(name) ? ["required"] : []), ...writeNotes(property, nested)];
      return notes.length > 0 ? `${name} (${notes.join("; ")})` : name;
    })
    .join(", ");
}

/** Whether any string in the schema has a length rule. */
function hasLengthRule(schema: JsonSchema): boolean {
  if (schema.minLength !== undefined || schema.maxLength !== undefined) return true;
  const children = [
    ...Object.values(schema.properties ?? {}),
    ...(schema.anyOf ?? []),
    ...(schema.items ? [schema.items] : []),
    ...(typeof schema.additionalProperties === "object" ? [schema.additionalProperties] : []),
  ];
  return children.some(hasLengthRule);
}

/**
 * JSON Schema's `maxLength` counts code points; the model's `maxlength`, and so the server,
 * counts UTF-16 units. Said once, where a length rule is stated.
 */
const LENGTH_UNITS = "Lengths count UTF-16 units (an emoji is 2).";

/** The fields a caller may write, as the core's body schema for `mode` has them. */
function writableFieldSummary(resource: Resource, mode: "create" | "update"): string {
  const { createSchema, updateSchema } = resource.views.tools;
  const schema = mode === "create" ? createSchema : updateSchema;
  const list = fieldList(schema, true);
  if (!list) return "";
  return hasLengthRule(schema) ? `Fields: ${list}. ${LENGTH_UNITS}` : `Fields: ${list}.`;
}

export function toolTitle(resource: Resource, method: CrudMethod): string {
  const name = resource.model.modelName;
  switch (method) {
    case "list":
      return `List ${name} documents`;
    case "read":
      return `Read ${withArticle(name)}`;
    case "create":
      return `Create ${withArticle(name)}`;
    case "update":
      return `Update ${withArticle(name)}`;
    case "delete":
      return `Delete ${withArticle(name)}`;
  }
}

export function describeTool(resource: Resource, method: CrudMethod, _input: JsonSchema): string {
  const name = resource.model.modelName;
  const custom = resource.options.mcp?.description;
  const join = (...parts: Array<string | undefined>) => parts.filter(Boolean).join(" ");
  switch (method) {
    case "list":
      return join(`List ${name} documents you may see.`, custom);
    case "read":
      return join(`Read one ${name} by id.`, custom ?? visibleFieldSummary(resource));
    case "create":
      return join(`Create ${withArticle(name)}.`, custom, writableFieldSummary(resource, "create"));
    case "update":
      return join(
        `Update ${withArticle(name)} by id.`,
        "Merge patch: nested objects merge, null clears a field, arrays are replaced whole.",
        custom,
        writableFieldSummary(resource, "update"),
      );
    case "delete":
      return resource.description.softDelete
        ? `Delete ${withArticle(name)} by id. It is soft-deleted: it disappears from lists and reads.`
        : `Delete ${withArticle(name)} by id. This cannot be undone.`;
  }
}
