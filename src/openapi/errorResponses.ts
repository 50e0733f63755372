/**
 * Errors in the document: the one ErrorBody shape of src/core/errors.ts as the `Error` schema,
 * one shared response component per status of the error table, and the `$ref`s operations use
 * to list the statuses they can answer.
 */

import {
  ERROR_CODES,
  ERROR_TABLE,
  type ErrorCode,
  type ErrorSpec,
  errorSpec,
} from "../core/errors.js";
import { IDEMPOTENCY_KEY_IN_USE, IDEMPOTENCY_KEY_REUSED } from "../ops/idempotency.js";
import type { JsonSchema } from "../schema/types.js";
import { ref } from "./fragments.js";
import type { OpenApiObject, OpenApiSource } from "./types.js";

/** The statuses documented as shared responses, with their component names. */
const ERROR_RESPONSES: ReadonlyArray<[number, string]> = [
  [400, "BadRequest"],
  [401, "Unauthorized"],
  [403, "Forbidden"],
  [404, "NotFound"],
  [405, "MethodNotAllowed"],
  [409, "Conflict"],
  [412, "PreconditionFailed"],
  [428, "PreconditionRequired"],
  [422, "UnprocessableContent"],
  [429, "TooManyRequests"],
];

/** Codes outside the built-in table that shared responses answer (src/ops/idempotency.ts). */
const EXTRA_CODES: Readonly<Record<number, readonly string[]>> = {
  409: [IDEMPOTENCY_KEY_IN_USE],
  422: [IDEMPOTENCY_KEY_REUSED],
};

const responseRef = (status: number) => {
  const entry = ERROR_RESPONSES.find(([s]) => s === status);
  return { $ref: `#/components/responses/${entry?.[1] ?? "BadRequest"}` };
};

export function errorBodySchema(): JsonSchema {
  return {
    type: "object",
    description: "The body of every error, on every route and surface.",
    properties: {
      status: { type: "integer", description: "The HTTP status, repeated." },
      title: { type: "string", description: "The status's short title." },
      detail: { type: "string", description: "What went wrong, for a person." },
      code: {
        type: "string",
        description: `A stable machine-readable code: ${ERROR_CODES.join(", ")} (plugins may add codes).`,
      },
      fields: {
        type: "object",
        additionalProperties: { type: "string" },
        description: "Field path → reason, for validation failures.",
      },
      version: {
        type: "integer",
        description: "A write refused for a stale version (409, 412): the record's version now.",
      },
      current: {
        type: "object",
        description: "A write refused for a stale version: the record as a read shows it now.",
      },
    },
    required: ["status", "title", "detail", "code"],
    additionalProperties: false,
  };
}

function errorResponse(status: number): OpenApiObject {
  const codes: string[] = [
    ...ERROR_CODES.filter((code) => (ERROR_TABLE[code] as ErrorSpec).status === status),
    ...(EXTRA_CODES[status] ?? []),
  ];
  const title = codes.length > 0 ? errorSpec(codes[0] as ErrorCode).title : `Error ${status}`;
  const response: OpenApiObject = {
    description: `${title}: code ${codes.join(", ") || "(plugin-defined)"}.`,
    content: { "application/json": { schema: ref("Error") } },
  };
  if (status === 429) {
    response.headers = {
      "Retry-After": {
        description: "Seconds to wait before retrying.",
        schema: { type: "integer", minimum: 1 },
      },
    };
  }
  return response;
}

/** `components.responses`: every shared error response, by component name. */
export function errorResponseComponents(): OpenApiObject {
  return Object.fromEntries(ERROR_RESPONSES.map(([status, name]) => [name, errorResponse(status)]));
}

/** An operation's error responses: status → `$ref` to the shared component. */
export function errors(statuses: readonly number[]): OpenApiObject {
  return Object.fromEntries(statuses.map((status) => [String(status), responseRef(status)]));
}

/**
 * `[429]` when the app's rate limits are on and the route spends points, else `[]`: spread
 * into an operation's error statuses. Read-only tools and actions spend no write points.
 */
export function rateLimitStatuses(source: OpenApiSource, spendsPoints = true): number[] {
  return source.rateLimited && spendsPoints ? [429] : [];
}
