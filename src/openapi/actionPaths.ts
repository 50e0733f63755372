/**
 * Model actions (CrudOptions.actions): `POST /<path>/{id}/<name>` for an instance action,
 * `POST /<path>/<name>` for a collection one, with the zod input's portable JSON Schema (the
 * same one the action's tool advertises) as the body, answering `{data}`.
 */

import { isWrite } from "../core/isWrite.js";
import { portableJsonSchema } from "../core/zodSchema.js";
import type { JsonSchema } from "../schema/types.js";
import { rateLimitStatuses } from "./errorResponses.js";
import { dataEnvelope, ID_PARAMETER, json, jsonBody, WORKSPACE_PARAMETER } from "./fragments.js";
import { IDEMPOTENCY_KEY_PARAMETER, IDEMPOTENCY_STATUSES, replayable } from "./idempotency.js";
import { operation } from "./operation.js";
import type { ResourceNames } from "./resourcePaths.js";
import type { MountedResource, OpenApiObject, OpenApiSource } from "./types.js";

export function actionOperations(
  mount: MountedResource,
  names: ResourceNames,
  source: OpenApiSource,
  paths: OpenApiObject,
): void {
  const { resource } = mount;
  const model = resource.model.modelName;
  for (const [name, config] of Object.entries(resource.options.actions ?? {})) {
    const where = `action ${model}.${name}`;
    const instance = config.scope === "instance";
    const readOnly = !isWrite({ method: name, annotations: config.annotations });
    const limited = rateLimitStatuses(source, !readOnly);
    const input: JsonSchema = config.input
      ? portableJsonSchema(config.input, `${where} input`, "input", {
          closed: config.allowUnknownKeys !== true,
        })
      : { type: "object", properties: {}, additionalProperties: false };
    const output: JsonSchema = config.output
      ? portableJsonSchema(config.output, `${where} output`, "output")
      : { description: "The action's result (documents serialized as in reads)." };
    const operationName = name.replace(/_(.)/g, (_m, c: string) => c.toUpperCase());
    paths[instance ? `${mount.path}/{id}/${name}` : `${mount.path}/${name}`] = {
      post: operation({
        tags: [model],
        operationId: `${operationName}${instance ? names.document : names.list}`,
        // As the action's tool is titled: `complete` → "Complete Todo".
        summary:
          config.title ??
          `${name.charAt(0).toUpperCase()}${name.slice(1).replace(/_/g, " ")} ${model}`,
        description: config.description,
        parameters: [
          ...(instance ? [ID_PARAMETER] : []),
          ...(resource.options.workspace ? [WORKSPACE_PARAMETER] : []),
          IDEMPOTENCY_KEY_PARAMETER,
        ],
        requestBody: jsonBody(input, false),
        responses: { "200": replayable(json(dataEnvelope(output), "The action's result.")) },
        errors: [400, 401, 403, ...(instance ? [404] : []), ...IDEMPOTENCY_STATUSES, ...limited],
      }),
    };
  }
}
