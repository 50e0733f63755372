/**
 * The per-surface view of a resource: every rule about which fields a caller sees, filters,
 * sorts, populates and writes, the page limits, which methods exist and whether anonymous
 * callers are served. The core enforces exactly this view, and tool schemas, descriptions
 * and documentation are generated from it, so what a client is told is what the server does.
 */
import { createHiddenFields, type HiddenFields } from "../schema/hiddenFields.js";
import { writeSchema } from "../schema/jsonSchema.js";
import type { FieldDescriptor, ModelDescription } from "../schema/types.js";
import { lazyValidator } from "../schema/validator.js";
import { readOnlyMatcher } from "../schema/writeSchema.js";
import type { CrudOptions } from "./crudOptions.js";
import { allDenied, type FieldDenials } from "./fieldRules.js";
import { listInputContract } from "./listSchema.js";
import { isMethodEnabled } from "./permissions.js";
import { CRUD_METHODS, type CrudMethod, type ViewName } from "./types.js";
import type { SurfaceView } from "./viewTypes.js";

const DEFAULT_LIMIT = 100;
const DEFAULT_MAX_LIMIT = 500;
const DEFAULT_MCP_MAX_LIMIT = 50;
const DEFAULT_MCP_METHODS: readonly CrudMethod[] = ["list", "read"];

const SORTABLE_KINDS = new Set(["string", "number", "boolean", "date", "objectId"]);

/** True when some ancestor of `path` is an array: such paths name many values, not one. */
function insideArray(path: string, description: ModelDescription): boolean {
  for (let dot = path.indexOf("."); dot !== -1; dot = path.indexOf(".", dot + 1)) {
    if (description.byPath.get(path.slice(0, dot))?.kind === "array") return true;
  }
  return false;
}

function sortablePaths(description: ModelDescription, hidden: HiddenFields): string[] {
  const paths: string[] = [];
  for (const [path, field] of description.byPath) {
    if (!isSortable(path, field, description, hidden)) continue;
    paths.push(path === "_id" ? "id" : path);
  }
  return paths;
}

function isSortable(
  path: string,
  field: FieldDescriptor,
  description: ModelDescription,
  hidden: HiddenFields,
): boolean {
  return (
    SORTABLE_KINDS.has(field.kind) &&
    path !== "__v" &&
    !path.includes("$") &&
    !hidden.isHidden(path) &&
    !insideArray(path, description)
  );
}

function anonymousFor(options: CrudOptions, surface: ViewName): boolean {
  const setting = options.allowAnonymous;
  if (typeof setting === "boolean") return setting;
  // REST leaves anonymous callers to the permissions (IsAny serves them); tools refuse them
  // unless opted in, because an AI client acting for nobody is rarely what was meant.
  return setting?.[surface] ?? surface === "rest";
}

function methodsFor(options: CrudOptions, surface: ViewName): Set<CrudMethod> {
  const enabled = CRUD_METHODS.filter((method) => isMethodEnabled(options.permissions, method));
  if (surface === "rest") return new Set(enabled);
  const opted = options.mcp?.methods ?? DEFAULT_MCP_METHODS;
  return new Set(enabled.filter((method) => opted.includes(method)));
}

/**
 * `denied`: the fields this view's callers may not read or write (fieldRules.ts). By default
 * every rule's field, as for a caller who passes none: the view built once per resource.
 */
export function buildView(
  surface: ViewName,
  description: ModelDescription,
  options: CrudOptions,
  denied: FieldDenials = allDenied(options.fields),
): SurfaceView {
  const excluded = surface === "tools" ? (options.mcp?.excludeFields ?? []) : [];
  const hidden = createHiddenFields(excluded, description, denied.read);
  const readOnlyFields = [...(options.readOnlyFields ?? []), ...denied.update];
  const createSchema = writeSchema(description, {
    hidden,
    readOnlyFields: [...(options.readOnlyFields ?? []), ...denied.create],
    mode: "create",
  });
  const updateSchema = writeSchema(description, {
    hidden,
    readOnlyFields,
    mode: "update",
    idInBody: surface === "rest",
  });
  const restMax = options.maxLimit ?? DEFAULT_MAX_LIMIT;
  const maxLimit =
    surface === "rest"
      ? restMax
      : Math.min(restMax, options.mcp?.maxLimit ?? DEFAULT_MCP_MAX_LIMIT);
  const view: SurfaceView = {
    surface,
    hidden,
    filterable: (options.queryFields ?? []).filter(
      (path) => description.byPath.has(path) && !hidden.isHidden(path),
    ),
    sortable: sortablePaths(description, hidden),
    populatable: (options.populatePaths ?? []).filter((p) => !hidden.isHidden(p.path)),
    methods: methodsFor(options, surface),
    defaultLimit: Math.min(options.defaultLimit ?? DEFAULT_LIMIT, maxLimit),
    maxLimit,
    anonymous: anonymousFor(options, surface),
    readOnlyPath: readOnlyMatcher(readOnlyFields),
    createSchema,
    updateSchema,
    validateCreate: lazyValidator(createSchema),
    validateUpdate: lazyValidator(updateSchema),
  };
  if (surface === "tools") view.listInput = listInputContract(description, view);
  return view;
}
