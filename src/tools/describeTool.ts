/**
 * Titles and descriptions a model reads to pick and call a tool: what it does, the visible
 * fields with their types, what can be filtered and sorted, and the limits.
 */
import type { Resource } from "../core/resource.js";
import type { CrudMethod } from "../core/types.js";
import type { FieldDescriptor, JsonSchema } from "../schema/types.js";

function typeLabel(field: FieldDescriptor): string {
  if (field.kind === "objectId") return field.ref ? `id of a ${field.ref}` : "id";
  if (field.kind === "array") return field.items ? `list of ${typeLabel(field.items)}` : "list";
  if (field.enum) return `one of ${field.enum.join("/")}`;
  return field.kind;
}

function visibleFieldSummary(resource: Resource): string {
  const { hidden } = resource.views.tools;
  const parts = Object.entries(resource.description.fields)
    .filter(
      ([name, field]) =>
        !hidden.isHidden(name) && name !== "_id" && name !== "__v" && !field.system,
    )
    .map(([name, field]) => `${name} (${typeLabel(field)}${field.required ? ", required" : ""})`);
  return parts.length > 0 ? `Fields: ${parts.join(", ")}.` : "";
}

export function toolTitle(resource: Resource, method: CrudMethod): string {
  const name = resource.model.modelName;
  switch (method) {
    case "list":
      return `List ${name} documents`;
    case "read":
      return `Read a ${name}`;
    case "create":
      return `Create a ${name}`;
    case "update":
      return `Update a ${name}`;
    case "delete":
      return `Delete a ${name}`;
  }
}

export function describeTool(resource: Resource, method: CrudMethod, input: JsonSchema): string {
  const name = resource.model.modelName;
  const summary = resource.options.mcp?.description ?? visibleFieldSummary(resource);
  switch (method) {
    case "list": {
      const { filterable, sortable, maxLimit: max } = resource.views.tools;
      return [
        `List ${name} documents you may see, as {data, page, limit, total, more}.`,
        summary,
        filterable.length > 0
          ? `Filter on: ${filterable.join(", ")} (a value, or operators such as {"$gte": 3}; each filter property lists its operators).`
          : "No fields can be filtered.",
        `Sort on: ${sortable.join(", ")}. At most ${max} per page.`,
      ]
        .filter(Boolean)
        .join(" ");
    }
    case "read":
      return `Read one ${name} by id. ${summary}`.trim();
    case "create": {
      const required = input.required ?? [];
      return [
        `Create a ${name}; returns it as {data}.`,
        summary,
        required.length > 0 ? `Required: ${required.join(", ")}.` : "",
      ]
        .filter(Boolean)
        .join(" ");
    }
    case "update":
      return `Update a ${name} by id; only the fields you pass change. Returns it as {data}. ${summary}`.trim();
    case "delete":
      return resource.description.softDelete
        ? `Delete a ${name} by id. It is soft-deleted: it disappears from lists and reads.`
        : `Delete a ${name} by id. This cannot be undone.`;
  }
}
