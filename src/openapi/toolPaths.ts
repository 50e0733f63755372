/**
 * Custom tools (`app.tool(...)`): `POST /tools/<name>` with the tool's input schema as the
 * body, answering its output schema: the same `{data}` object the MCP tool returns as
 * `structuredContent`. A tool the caller may not see answers 404 (401 when anonymous);
 * read-only tools spend no write points.
 */

import { isWrite } from "../core/isWrite.js";
import { rateLimitStatuses } from "./errorResponses.js";
import { json, jsonBody } from "./fragments.js";
import { IDEMPOTENCY_KEY_PARAMETER, IDEMPOTENCY_STATUSES, replayable } from "./idempotency.js";
import { operation } from "./operation.js";
import type { OpenApiObject, OpenApiSource } from "./types.js";

/** `todos_stats` → `todosStats`; a name another operation already has gets a `Tool` suffix. */
function toolOperationId(name: string, paths: OpenApiObject): string {
  const base = name.replace(/_(.)/g, (_m, c: string) => c.toUpperCase());
  const taken = new Set<string>();
  for (const item of Object.values(paths)) {
    for (const existing of Object.values(item as OpenApiObject)) {
      if (typeof existing?.operationId === "string") taken.add(existing.operationId);
    }
  }
  let id = base;
  for (let n = 2; taken.has(id); n++) id = n === 2 ? `${base}Tool` : `${base}Tool${n}`;
  return id;
}

/** Call it after every other path is in place: its ids step aside for the ones taken. */
export function customToolOperations(source: OpenApiSource, paths: OpenApiObject): void {
  for (const tool of source.customTools ?? []) {
    const readOnly = !isWrite(tool);
    paths[`/tools/${tool.name}`] = {
      post: operation({
        tags: ["Tools"],
        operationId: toolOperationId(tool.name, paths),
        summary: tool.title,
        description: tool.description,
        parameters: [IDEMPOTENCY_KEY_PARAMETER],
        requestBody: jsonBody(tool.inputSchema, false),
        responses: {
          "200": replayable(
            json(
              tool.outputSchema,
              "The tool's result: the object the MCP tool returns as structuredContent.",
            ),
          ),
        },
        errors: [
          400,
          401,
          403,
          404,
          ...IDEMPOTENCY_STATUSES,
          ...rateLimitStatuses(source, !readOnly),
        ],
      }),
    };
  }
}
