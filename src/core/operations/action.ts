/**
 * action: the one verdict (src/core/verdict.ts: anonymous per the view, scope by `isWrite`,
 * the action's method-level permissions) → for instance actions, load the document (404
 * when missing or not readable, 403 when readable but the action's permissions refuse it) →
 * validate the input with its zod schema (one validation; `validation_failed` with dotted
 * paths) → handler → result: the model's own documents populated and presented as a read's,
 * anything else through the surface's view (hidden fields stripped) or checked against the
 * action's output schema. Writes (anything not annotated read-only) are observed.
 */
import type { z } from "zod";
import type { ActionConfig } from "../actionTypes.js";
import { methodNotAllowed, TerrenoError, validationFailed } from "../errors.js";
import { assertNoForbiddenKeys } from "../inputSafety.js";
import { isWrite } from "../isWrite.js";
import { loadDocument } from "../loadDocument.js";
import { isMongooseDocument } from "../mongooseErrors.js";
import { observeWrite } from "../observe.js";
import { resolvePopulate } from "../populate.js";
import { presentDocument } from "../present.js";
import { type Resource, viewFor } from "../resource.js";
import { serializeDocument } from "../serialize.js";
import type { CrudMethod, PlainObject, RequestContext, StoredDocument } from "../types.js";
import { unknownKeyErrors } from "../unknownKeys.js";
import { type AccessRule, assertAllowed, cachedRule, type RuleCache } from "../verdict.js";
import type { SurfaceView } from "../viewTypes.js";
import { closedInputSchema, zodFieldErrors } from "../zodSchema.js";

export interface ActionInput {
  /** The document's id, for an instance action. */
  id?: unknown;
  /** The action's input (validated here, against the action's zod schema). */
  input?: unknown;
}

function actionOf(resource: Resource, name: string): ActionConfig {
  const action = Object.hasOwn(resource.options.actions ?? {}, name)
    ? resource.options.actions?.[name]
    : undefined;
  if (!action) throw methodNotAllowed(name);
  return action;
}

const rules: RuleCache = new WeakMap();

/** The verdict's rule for action `name` on one surface's view of its resource, built once. */
export function actionAccess(view: SurfaceView, name: string, config: ActionConfig): AccessRule {
  return cachedRule(rules, view, name, () => ({
    method: name,
    write: isWrite({ method: name, annotations: config.annotations }),
    anonymous: view.anonymous,
    permissions: config.permissions,
  }));
}

/** An action or tool with no input takes no keys (its schema says `properties: {}`). */
const NO_INPUT = { type: "object", properties: {}, additionalProperties: false };

/**
 * One validation: unknown keys first (unless the action or tool sets `allowUnknownKeys`),
 * then the zod schema itself; both become one `validation_failed`, each field named once.
 */
export function parseInput(
  schema: z.ZodType | undefined,
  input: unknown,
  what: string,
  allowUnknownKeys = false,
): PlainObject {
  const value = input === undefined || input === null ? {} : input;
  if (typeof value !== "object" || Array.isArray(value)) {
    throw validationFailed(`Invalid input for ${what}.`, { "(root)": "must be an object" });
  }
  assertNoForbiddenKeys(value, "input");
  const closed = allowUnknownKeys ? {} : schema ? closedInputSchema(schema) : NO_INPUT;
  const unknown = unknownKeyErrors(value, closed);
  const parsed = schema?.safeParse(value);
  if (parsed && !parsed.success) {
    throw validationFailed(`Invalid input for ${what}.`, {
      ...unknown,
      ...zodFieldErrors(parsed.error),
    });
  }
  if (Object.keys(unknown).length > 0)
    throw validationFailed(`Invalid input for ${what}.`, unknown);
  return (parsed ? parsed.data : value) as PlainObject;
}

/**
 * A handler's result as it may leave: every document in it (a Mongoose document, or an
 * object with `_id`, at any depth) is serialized and stripped of the surface's hidden fields;
 * with an output schema the result is then checked against it (a mismatch is a server fault).
 */
export function shapeResult(
  result: unknown,
  output: z.ZodType | undefined,
  view: SurfaceView | undefined,
  what: string,
): unknown {
  const strip = (value: unknown) => (view ? view.hidden.stripHidden(value) : value);
  const value = toJson(result, strip);
  if (!output) return value;
  const parsed = output.safeParse(value);
  if (!parsed.success) {
    throw new TerrenoError("internal", `${what} returned a result its output schema rejects.`, {
      ...zodFieldErrors(parsed.error),
    });
  }
  return toJson(parsed.data, strip);
}

function hasObjectId(value: unknown): boolean {
  return typeof value === "object" && value !== null && "_id" in value;
}

function isPlainObject(value: unknown): value is PlainObject {
  if (typeof value !== "object" || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** JSON as every surface sends it, with each document serialized and passed through `strip`. */
function toJson(value: unknown, strip: (value: unknown) => unknown): unknown {
  if (value === undefined) return null;
  if (Array.isArray(value)) return value.map((item) => toJson(item, strip));
  if (isMongooseDocument(value) || hasObjectId(value)) return strip(serializeDocument(value));
  if (isPlainObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => [key, toJson(child, strip)]),
    );
  }
  if (typeof value !== "object" || value === null) return value;
  return JSON.parse(JSON.stringify(value));
}

export function action(
  resource: Resource,
  ctx: RequestContext,
  name: string,
  input: ActionInput,
): Promise<unknown> {
  const config = actionOf(resource, name);
  if (!isWrite({ method: name, annotations: config.annotations }))
    return runAction(resource, ctx, name, config, input);
  return observeWrite(resource, ctx, name, { id: input.id, body: input.input }, () =>
    runAction(resource, ctx, name, config, input),
  );
}

async function runAction(
  resource: Resource,
  ctx: RequestContext,
  name: string,
  config: ActionConfig,
  input: ActionInput,
): Promise<unknown> {
  const view = viewFor(resource, ctx.transport);
  await assertAllowed(actionAccess(view, name, config), ctx);
  // Object-level permission methods are called with the action's name as their method.
  const method = name as CrudMethod;
  const permissions = { read: resource.options.permissions.read, [method]: config.permissions };
  const what = `${resource.model.modelName}.${name}`;
  if (config.scope === "instance") {
    if (input.id === undefined || input.id === null) {
      throw validationFailed(`Invalid input for ${what}.`, { id: "is required" });
    }
    const doc = await loadDocument(resource, ctx, method, input.id, [], permissions);
    const body = parseInput(config.input, input.input, what, config.allowUnknownKeys);
    return actionResult(resource, view, config, await config.handler(ctx, doc, body), what);
  }
  const body = parseInput(config.input, input.input, what, config.allowUnknownKeys);
  return actionResult(resource, view, config, await config.handler(ctx, body), what);
}

/**
 * Without an output schema, a result that is the model's document (or a list of them) leaves
 * as a CRUD read's does: the view's default populate, then presentDocument. Anything else
 * goes through shapeResult.
 */
async function actionResult(
  resource: Resource,
  view: SurfaceView,
  config: ActionConfig,
  result: unknown,
  what: string,
): Promise<unknown> {
  const { model } = resource;
  const docs = Array.isArray(result) ? result : [result];
  const own = docs.length > 0 && docs.every((item) => item instanceof model);
  if (config.output || !own) return shapeResult(result, config.output, view, what);
  const populate = resolvePopulate(view, undefined, model);
  const presented = await Promise.all(
    (docs as StoredDocument[]).map(async (item) => {
      if (populate.length > 0) await item.populate(populate);
      return presentDocument(view, item);
    }),
  );
  return Array.isArray(result) ? presented : presented[0];
}
