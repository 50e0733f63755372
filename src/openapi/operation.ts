/**
 * One helper for every operation object in the document. Routers, actions, custom tools and
 * the auth routes all write the same shape; building it in one place keeps their key order (and
 * so the serialized document) uniform and leaves each caller with only what differs.
 */

import { errors } from "./errorResponses.js";
import type { OpenApiObject } from "./types.js";

export interface OperationSpec {
  tags: string[];
  operationId: string;
  summary: string;
  description?: string;
  /** A route anyone may call: `security: []` overrides the document's default. */
  public?: boolean;
  parameters?: OpenApiObject[];
  requestBody?: OpenApiObject;
  /** The success responses, by status. */
  responses: OpenApiObject;
  /** The error statuses it can answer, each a `$ref` to the shared response. */
  errors: readonly number[];
}

/** Keys in one fixed order (and so one serialized form); absent parts are left out. */
export function operation(spec: OperationSpec): OpenApiObject {
  return {
    tags: spec.tags,
    operationId: spec.operationId,
    summary: spec.summary,
    // Kept when named even if undefined (an action config from plain JS), as it always was.
    ...("description" in spec ? { description: spec.description } : {}),
    ...(spec.public ? { security: [] } : {}),
    ...(spec.parameters ? { parameters: spec.parameters } : {}),
    ...(spec.requestBody ? { requestBody: spec.requestBody } : {}),
    responses: { ...spec.responses, ...errors(spec.errors) },
  };
}
