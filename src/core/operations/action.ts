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
import { callerView } from "../callerView.js";
import { methodNotAllowed, TerrenoError, validationFailed } from "../errors.js";
import { assertNoForbiddenKeys } from "../inputSafety.js";
import { isWrite } from "../isWrite.js";
import { loadDocument } from "../loadDocument.js";
import { isMongooseDocument } from "../mongooseErrors.js";
import { observeWrite } from "../observe.js";
import { resolvePopulate, scopePopulate } from "../populate.js";
import { presentDocument, presentForeign } from "../present.js";
import { type Resource, surfaceOf, viewFor } from "../resource.js";
import { serializeDocument } from "../serialize.js";
import type {
  AnyModel,
  CrudMethod,
  PlainObject,
  RequestContext,
  StoredDocument,
} from "../types.js";
import { unknownKeyErrors } from "../unknownKeys.js";
import { type AccessRule, assertAllowed, cachedRule, type RuleCache } from "../verdict.js";
import { withVersion } from "../versions.js";
import type { SurfaceView } from "../viewTypes.js";
import { workspaceIdFor } from "../workspaceScope.js";
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
export function actionAccess(
  resource: Resource,
  view: SurfaceView,
  name: string,
  config: ActionConfig,
): AccessRule {
  return cachedRule(rules, view, name, () => ({
    method: name,
    write: isWrite({ method: name, annotations: config.annotations }),
    anonymous: view.anonymous,
    permissions: config.permissions,
    workspace: Boolean(resource.options.workspace),
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

/** Where a result is presented: the call's context, and the resource whose action ran (if any). */
export interface ResultContext {
  ctx: RequestContext;
  /** The action's resource and its view: its own documents are populated as a read's are. */
  own?: { resource: Resource; view: SurfaceView };
  output?: z.ZodType;
  what: string;
}

/**
 * A handler's result as it may leave. Without an output schema, each of the resource's own
 * documents in it (at any depth: the result, in a list, or inside a plain object) is
 * populated and presented as a read of it is. Every other document leaves as its own model's
 * routers show it (presentForeign); an object with `_id` that is no document (a lean read) is
 * stripped by the call's view. With an output schema, the result is checked against it (a
 * mismatch is a server fault), after the same stripping and without populating.
 */
export async function presentResult(result: unknown, at: ResultContext): Promise<unknown> {
  const surface = at.own?.view.surface ?? surfaceOf(at.ctx.transport);
  const populate =
    at.own && !at.output
      ? await scopePopulate(ownPopulate(at.own, at.ctx), at.own.resource.model, at.ctx)
      : [];
  const present = async (value: unknown): Promise<unknown> => {
    if (value === undefined) return null;
    if (Array.isArray(value)) return Promise.all(value.map(present));
    const model = modelOf(value);
    if (model) {
      if (!at.own || model !== at.own.resource.model) {
        return presentForeign(model, value, surface, at.ctx);
      }
      if (populate.length > 0) await (value as StoredDocument).populate(populate);
      const own = value as StoredDocument;
      return withVersion(at.own.resource, own, presentDocument(at.own.view, own));
    }
    // A subdocument, or an object with `_id` that is no document (a lean read).
    if (isMongooseDocument(value) || hasObjectId(value)) {
      const json = serializeDocument(value);
      return at.own ? at.own.view.hidden.stripHidden(json) : json;
    }
    if (isPlainObject(value)) {
      const entries = await Promise.all(
        Object.entries(value).map(async ([key, child]) => [key, await present(child)] as const),
      );
      return Object.fromEntries(entries);
    }
    if (typeof value !== "object" || value === null) return value;
    return JSON.parse(JSON.stringify(value));
  };
  const value = await present(result);
  if (!at.output) return value;
  const parsed = at.output.safeParse(value);
  if (!parsed.success) {
    throw new TerrenoError("internal", `${at.what} returned a result its output schema rejects.`, {
      ...zodFieldErrors(parsed.error),
    });
  }
  return present(parsed.data);
}

function ownPopulate(own: { resource: Resource; view: SurfaceView }, ctx: RequestContext) {
  return resolvePopulate(own.view, undefined, own.resource.model, ctx);
}

/** The model of a top-level Mongoose document (a subdocument's constructor is no model). */
function modelOf(value: unknown): AnyModel | undefined {
  if (!isMongooseDocument(value) || (value as { $isSubdocument?: boolean }).$isSubdocument) {
    return undefined;
  }
  const model = (value as { constructor?: { modelName?: unknown } }).constructor;
  return typeof model?.modelName === "string" ? (model as AnyModel) : undefined;
}

function hasObjectId(value: unknown): boolean {
  return typeof value === "object" && value !== null && "_id" in value;
}

function isPlainObject(value: unknown): value is PlainObject {
  if (typeof value !== "object" || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Runs `body` observed as a write, unless the action is annotated read-only. */
function observed<T>(
  resource: Resource,
  ctx: RequestContext,
  name: string,
  config: ActionConfig,
  input: ActionInput,
  body: () => Promise<T>,
): Promise<T> {
  if (!isWrite({ method: name, annotations: config.annotations })) return body();
  return observeWrite(resource, ctx, name, { id: input.id, body: input.input }, body);
}

/** The verdict on `ctx` (inside the write's observation: a refusal is a write attempt), then `runAction`'s steps. */
export function action(
  resource: Resource,
  ctx: RequestContext,
  name: string,
  input: ActionInput,
): Promise<unknown> {
  const config = actionOf(resource, name);
  return observed(resource, ctx, name, config, input, async () => {
    await assertAllowed(
      actionAccess(resource, viewFor(resource, ctx.transport), name, config),
      ctx,
    );
    return actionSteps(resource, await callerView(resource, ctx), ctx, name, config, input);
  });
}

/** The action itself, for a caller already authorized on `view` (the tool-call runner). */
export function runAction(
  resource: Resource,
  view: SurfaceView,
  ctx: RequestContext,
  name: string,
  input: ActionInput,
): Promise<unknown> {
  const config = actionOf(resource, name);
  return observed(resource, ctx, name, config, input, () =>
    actionSteps(resource, view, ctx, name, config, input),
  );
}

async function actionSteps(
  resource: Resource,
  view: SurfaceView,
  ctx: RequestContext,
  name: string,
  config: ActionConfig,
  input: ActionInput,
): Promise<unknown> {
  // Object-level permission methods are called with the action's name as their method.
  const method = name as CrudMethod;
  const permissions = { read: resource.options.permissions.read, [method]: config.permissions };
  const what = `${resource.model.modelName}.${name}`;
  // A collection action of a scoped model runs in the call's workspace (ctx.workspace), or not at all.
  await workspaceIdFor(resource, ctx);
  if (config.scope === "instance") {
    if (input.id === undefined || input.id === null) {
      throw validationFailed(`Invalid input for ${what}.`, { id: "is required" });
    }
    const doc = await loadDocument(resource, ctx, method, input.id, [], permissions);
    const body = parseInput(config.input, input.input, what, config.allowUnknownKeys);
    const result = await config.handler(ctx, doc, body);
    return presentResult(result, { ctx, own: { resource, view }, output: config.output, what });
  }
  const body = parseInput(config.input, input.input, what, config.allowUnknownKeys);
  const result = await config.handler(ctx, body);
  return presentResult(result, { ctx, own: { resource, view }, output: config.output, what });
}
