/**
 * A Resource is a model plus its router options, with everything derived from them built
 * once: the field description and one view per surface (see view.ts).
 */
import { describeModel } from "../schema/describeModel.js";
import type { ModelDescription } from "../schema/types.js";
import type { CrudOptions } from "./crudOptions.js";
import { defaultToolPrefix } from "./toolPrefix.js";
import {
  type AnyModel,
  CRUD_METHODS,
  SURFACE_VIEWS,
  type Surface,
  type ViewName,
} from "./types.js";
import { buildView } from "./view.js";
import type { SurfaceView } from "./viewTypes.js";
import { registerScopedModel } from "./workspaceScope.js";

export type { SurfaceView } from "./viewTypes.js";

/**
 * Router options with their document types erased: the core calls hooks, permissions and
 * actions only with documents of the resource's own model, which `defineResource` typed.
 */
type ResourceOptions = CrudOptions;

export interface Resource {
  model: AnyModel;
  options: ResourceOptions;
  description: ModelDescription;
  views: Readonly<Record<ViewName, SurfaceView>>;
  /**
   * What its tools' names start with (`todos` in `todos_list`, `todos_complete`) and its
   * records' resource URIs name: `mcp.toolPrefix`, else the pluralized snake_case model name.
   */
  toolPrefix: string;
}

const ACTION_NAME = /^[a-z][a-z0-9_]*$/;

/**
 * Action names become routes and tool names, and an action's permissions stand in for the
 * method's in the 404 decision: a CRUD method's name would let it borrow another's rules.
 */
function checkActionNames(options: ResourceOptions): void {
  for (const name of Object.keys(options.actions ?? {})) {
    if (!ACTION_NAME.test(name)) {
      throw new Error(`terreno-mcp: action name "${name}" must match ${ACTION_NAME}.`);
    }
    if ((CRUD_METHODS as readonly string[]).includes(name)) {
      throw new Error(`terreno-mcp: action name "${name}" is a CRUD method; choose another.`);
    }
  }
}

/** A scoped router's workspace field is read-only to callers: the core sets it on create. */
function scopedOptions(model: AnyModel, options: ResourceOptions): ResourceOptions {
  const field = options.workspace;
  if (!field) return options;
  if (!model.schema.path(field)) {
    throw new Error(`terreno-mcp: workspace field "${field}" is not a path of ${model.modelName}.`);
  }
  registerScopedModel(model, field);
  const readOnlyFields = options.readOnlyFields ?? [];
  if (readOnlyFields.includes(field)) return options;
  return { ...options, readOnlyFields: [...readOnlyFields, field] };
}

export function defineResource<TRaw, TDoc>(
  model: AnyModel,
  typedOptions: CrudOptions<TRaw, TDoc>,
): Resource {
  // The one erasure: parameters typed `TDoc` become `unknown` (see ResourceOptions).
  const options = scopedOptions(model, typedOptions as unknown as ResourceOptions);
  checkActionNames(options);
  const description = describeModel(model);
  return {
    model,
    options,
    description,
    views: {
      rest: buildView("rest", description, options),
      tools: buildView("tools", description, options),
    },
    toolPrefix: options.mcp?.toolPrefix ?? defaultToolPrefix(model.modelName),
  };
}

/** The view a surface's calls are judged and presented by. */
export function surfaceOf(surface: Surface): ViewName {
  return SURFACE_VIEWS[surface];
}

/** The view a call is judged by. */
export function viewFor(resource: Resource, surface: Surface): SurfaceView {
  return resource.views[surfaceOf(surface)];
}
