/**
 * What of one document may leave a surface: the default serialization minus the view's hidden
 * fields. The CRUD pipeline (respond.ts), actions, and the routes that serve a model without a
 * router of their own (`/auth/me`, the chat's stored messages, `whoami`) all present through it.
 */
import { defineResource, type Resource } from "./resource.js";
import { serializeDocument } from "./serialize.js";
import type { AnyModel, PlainObject } from "./types.js";
import type { Surface, SurfaceView } from "./viewTypes.js";

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
export function modelView(model: AnyModel, surface: Surface): SurfaceView {
  return modelResource(model).views[surface];
}
