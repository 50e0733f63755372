/**
 * A Resource is a model plus its router options, with everything derived from them built
 * once: the field description, hidden-field rules and compiled body validators per surface.
 */
import { describeModel } from "../schema/describeModel.js";
import { createHiddenFields, type HiddenFields } from "../schema/hiddenFields.js";
import { writeSchema } from "../schema/jsonSchema.js";
import type { JsonSchema, ModelDescription } from "../schema/types.js";
import { compileValidator, type Validator } from "../schema/validator.js";
import type { AnyModel, CrudOptions, Transport } from "./types.js";

/** REST sees everything but `select: false`; MCP and AI tools also lose `mcp.excludeFields`. */
export type Surface = "rest" | "tools";

export interface SurfaceView {
  hidden: HiddenFields;
  createSchema: JsonSchema;
  updateSchema: JsonSchema;
  validateCreate: Validator;
  validateUpdate: Validator;
}

export interface Resource {
  model: AnyModel;
  options: CrudOptions;
  description: ModelDescription;
  views: Record<Surface, SurfaceView>;
}

export const DEFAULT_LIMIT = 100;
export const DEFAULT_MAX_LIMIT = 500;
export const DEFAULT_MCP_MAX_LIMIT = 50;

function buildView(
  description: ModelDescription,
  excludeFields: string[],
  readOnlyFields: string[],
): SurfaceView {
  const hidden = createHiddenFields(excludeFields, description);
  const createSchema = writeSchema(description, { hidden, readOnlyFields, mode: "create" });
  const updateSchema = writeSchema(description, { hidden, readOnlyFields, mode: "update" });
  return {
    hidden,
    createSchema,
    updateSchema,
    validateCreate: compileValidator(createSchema),
    validateUpdate: compileValidator(updateSchema),
  };
}

export function defineResource(model: AnyModel, options: CrudOptions): Resource {
  const description = describeModel(model);
  const readOnlyFields = options.readOnlyFields ?? [];
  return {
    model,
    options,
    description,
    views: {
      rest: buildView(description, [], readOnlyFields),
      tools: buildView(description, options.mcp?.excludeFields ?? [], readOnlyFields),
    },
  };
}

export function surfaceOf(transport: Transport): Surface {
  return transport === "mcp" || transport === "ai" ? "tools" : "rest";
}

export function maxLimitFor(resource: Resource, surface: Surface): number {
  const restMax = resource.options.maxLimit ?? DEFAULT_MAX_LIMIT;
  if (surface === "rest") {
    return restMax;
  }
  return Math.min(restMax, resource.options.mcp?.maxLimit ?? DEFAULT_MCP_MAX_LIMIT);
}
