/**
 * Small building blocks shared by every part of the document: component references and names,
 * the `{data}` envelope every success answer uses, JSON bodies and the `{id}` path parameter.
 */

import { OBJECT_ID_PATTERN } from "../schema/fieldSchema.js";
import type { JsonSchema } from "../schema/types.js";
import type { OpenApiObject } from "./types.js";

/** A component reference; typed as a schema so it can sit wherever one does. */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` }) as JsonSchema;

/** `Todo` → `Todo`, `food-item` → `FoodItem`: a component name OpenAPI accepts. */
export function componentName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) =>
    c ? c.toUpperCase() : "",
  );
  return cleaned.charAt(0).toUpperCase() + cleaned.slice(1);
}

/** `{data: schema}`: the envelope of every success answer that carries a body. */
export function dataEnvelope(schema: JsonSchema): JsonSchema {
  return {
    type: "object",
    properties: { data: schema },
    required: ["data"],
  };
}

/** A response (or request content) of one JSON schema. */
export function json(schema: JsonSchema, description: string): OpenApiObject {
  return { description, content: { "application/json": { schema } } };
}

/**
 * A request body of one JSON schema; required unless said otherwise. Open JSON is accepted too:
 * some bodies are written inline from plain objects rather than typed schemas.
 */
export function jsonBody(schema: JsonSchema | OpenApiObject, required = true): OpenApiObject {
  return { required, content: { "application/json": { schema } } };
}

/** A workspace-scoped router's routes take the caller's choice of workspace (src/core/workspace.ts). */
export const WORKSPACE_PARAMETER = {
  name: "X-Workspace-Id",
  in: "header",
  required: false,
  description:
    "The workspace the call acts in: one of the caller's. Not needed with one workspace or a token bound to one (naming another than the token's is 403). A workspace the caller is not in is 404; with several and none chosen, 400 lists them.",
  schema: { type: "string" },
};

export const ID_PARAMETER = {
  name: "id",
  in: "path",
  required: true,
  description: "The document's id (24 hex characters).",
  schema: { type: "string", pattern: OBJECT_ID_PATTERN },
};
