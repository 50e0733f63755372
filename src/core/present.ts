/**
 * What of one document may leave a surface: the default serialization minus the view's hidden
 * fields. The CRUD pipeline (respond.ts), actions, and the routes that serve a model without a
 * router of their own (`/auth/me`, the chat's stored messages, `whoami`) all present through it.
 */
import type { HiddenFields } from "../schema/hiddenFields.js";
import { defineResource, type Resource } from "./resource.js";
import { serializeDocument } from "./serialize.js";
import type {
  AnyModel,
  HiddenFieldsLookup,
  PlainObject,
  RequestContext,
  ViewName,
} from "./types.js";
import type { SurfaceView } from "./viewTypes.js";

/** A document as it leaves `view`'s surface: serialized, then stripped of the hidden fields. */
export function presentDocument(view: SurfaceView, doc: unknown): PlainObject {
  return view.hidden.stripHidden(serializeDocument(doc)) as PlainObject;
}

const bareResources = new WeakMap<AnyModel, Resource>();

/**
 * A model as a resource with no router options: its views hide what the schema hides
 * (`select: false`, at any depth). For surfaces that serve a model no router describes;
 * built once per model.
 */
export function modelResource(model: AnyModel): Resource {
  let resource = bareResources.get(model);
  if (!resource) {
    resource = defineResource(model, { permissions: {} });
    bareResources.set(model, resource);
  }
  return resource;
}

/** `modelResource(model)`'s view for one surface. */
export function modelView(model: AnyModel, surface: ViewName): SurfaceView {
  return modelResource(model).views[surface];
}

/** One shared empty answer, so "the same routers as last time" is an identity check (populate.ts). */
const NO_ROUTERS: readonly HiddenFields[] = Object.freeze([]);

/**
 * The app's `RequestContext.hiddenOf`: for a model, the hidden fields of every router serving
 * it on that surface. `resources` is read when first asked, after the app registered its
 * routers; a model no router serves has none (its schema's own `select: false` always holds).
 */
export function hiddenFieldsLookup(resources: () => readonly Resource[]): HiddenFieldsLookup {
  let byModel: Map<AnyModel, Record<ViewName, HiddenFields[]>> | undefined;
  let built = -1;
  return (model, surface) => {
    const all = resources();
    if (!byModel || built !== all.length) {
      byModel = new Map();
      for (const resource of all) {
        let entry = byModel.get(resource.model);
        if (!entry) {
          entry = { rest: [], tools: [] };
          byModel.set(resource.model, entry);
        }
        entry.rest.push(resource.views.rest.hidden);
        entry.tools.push(resource.views.tools.hidden);
      }
      built = all.length;
    }
    return byModel.get(model)?.[surface] ?? NO_ROUTERS;
  };
}

/** What hides fields of `model`'s documents on `surface`: its schema, and each of its routers. */
export function hiddenFieldsOf(
  model: AnyModel,
  surface: ViewName,
  ctx: Pick<RequestContext, "services">,
): readonly HiddenFields[] {
  return [modelView(model, surface).hidden, ...(ctx.services.hiddenOf?.(model, surface) ?? [])];
}

/**
 * A document of a model other than the call's own, as it leaves `surface`: serialized, then
 * stripped of what the model's schema and every router of it hide there.
 */
export function presentForeign(
  model: AnyModel,
  doc: unknown,
  surface: ViewName,
  ctx: Pick<RequestContext, "services">,
): unknown {
  let value: unknown = serializeDocument(doc);
  for (const hidden of hiddenFieldsOf(model, surface, ctx)) value = hidden.stripHidden(value);
  return value;
}
