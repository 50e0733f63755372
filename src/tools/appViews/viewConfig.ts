/**
 * What an MCP App view of a model shows, read from the tools view (src/core/view.ts): its
 * fields (hidden ones never appear), which columns sort, and which boolean fields the view may
 * toggle through the model's update tool. Schema only: record data arrives in the tool result.
 */
import type { Resource } from "../../core/resource.js";
import type { FieldDescriptor } from "../../schema/types.js";
import type { ToolDefinition } from "../toolDefinitions.js";

/** One field as the view shows it. */
interface ViewField {
  /** The field's name in the serialized document (`id` for `_id`). */
  name: string;
  /** A label for people: `dueDate` → "Due date". */
  label: string;
  kind: "string" | "number" | "boolean" | "date" | "id" | "list" | "object";
  /** Whether the list tool sorts by it (`sort: "name"` / `"-name"`). */
  sortable: boolean;
  /** A boolean the view may flip with the update tool (`{id, [name]: checked}`). */
  toggle: boolean;
}

export interface ViewConfig {
  kind: "list" | "read";
  /** The model's plural title, e.g. "Todos". */
  title: string;
  /** Every field the tools view shows, in schema order; the record card shows them all. */
  fields: ViewField[];
  /** The table's columns: the scalar fields but timestamps, at most MAX_COLUMNS. */
  columns: string[];
  /** The field people recognise a record by (`title`, `name`, ...), if any. */
  labelField?: string;
  /** The list tool the table pages and sorts through. */
  listTool?: string;
  /** The update tool a toggle calls. */
  updateTool?: string;
}

const MAX_COLUMNS = 8;
const LABEL_FIELDS = ["title", "name", "label", "subject", "email"];

/** `dueDate` → "Due date", `created_at` → "Created at". */
function humanize(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function kindOf(field: FieldDescriptor): ViewField["kind"] {
  switch (field.kind) {
    case "string":
    case "number":
    case "boolean":
    case "date":
      return field.kind;
    case "objectId":
      return "id";
    case "array":
      return "list";
    default:
      return "object";
  }
}

function isScalarList(field: FieldDescriptor): boolean {
  const item = field.items?.kind;
  return item === "string" || item === "number" || item === "date" || item === "boolean";
}

function toolOf(
  tools: readonly ToolDefinition[],
  resource: Resource,
  method: string,
): string | undefined {
  return tools.find(
    (tool) => tool.kind === "crud" && tool.resource === resource && tool.method === method,
  )?.name;
}

/** The view of `tool` (a list or read tool of `resource`), or undefined when it has none. */
export function viewConfigFor(
  tool: ToolDefinition,
  tools: readonly ToolDefinition[],
): ViewConfig | undefined {
  if (tool.kind !== "crud") return undefined;
  const { resource, method } = tool;
  if (method !== "list" && method !== "read") return undefined;
  // A custom response handler shapes results freely: no fields to draw from.
  if (resource.options.mcp?.mcpResponseHandler ?? resource.options.responseHandler) {
    return undefined;
  }
  const view = resource.views.tools;
  const writable = new Set(Object.keys(view.updateSchema.properties ?? {}));
  const updateTool = toolOf(tools, resource, "update");
  const sortable = new Set(view.sortable);
  const fields: ViewField[] = [];
  for (const [name, field] of Object.entries(resource.description.fields)) {
    if (name === "__v" || view.hidden.isHidden(name)) continue;
    const shown = name === "_id" ? "id" : name;
    fields.push({
      name: shown,
      label: shown === "id" ? "Id" : humanize(name),
      kind: kindOf(field),
      sortable: sortable.has(shown),
      toggle: field.kind === "boolean" && Boolean(updateTool) && writable.has(name),
    });
  }
  const columns = fields
    .filter((field) => {
      if (field.name === "id" || field.kind === "object" || field.kind === "id") return false;
      const descriptor = resource.description.fields[field.name];
      // Timestamps and the version key belong on the record card, not in every row.
      if (descriptor?.system) return false;
      return field.kind !== "list" || (descriptor !== undefined && isScalarList(descriptor));
    })
    .slice(0, MAX_COLUMNS)
    .map((field) => field.name);
  const labelField = LABEL_FIELDS.find((name) =>
    fields.some((field) => field.name === name && field.kind === "string"),
  );
  const listTool = toolOf(tools, resource, "list");
  return {
    kind: method,
    title: humanize(tool.name.replace(/_(list|read)$/, "")),
    fields,
    columns,
    ...(labelField ? { labelField } : {}),
    ...(listTool ? { listTool } : {}),
    ...(updateTool ? { updateTool } : {}),
  };
}
