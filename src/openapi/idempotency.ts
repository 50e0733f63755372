/**
 * The `Idempotency-Key` request header of the POST routes that honour it (creates, actions,
 * custom tools; src/rest/idempotent.ts) and the `Idempotent-Replayed` header of a replay.
 */
import type { OpenApiObject } from "./types.js";

export const IDEMPOTENCY_KEY_PARAMETER: OpenApiObject = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Makes a retry safe (IETF Idempotency-Key draft): the same key with the same request, by the " +
    "same user, within 24 hours answers the first response again (status and body) with " +
    "`Idempotent-Replayed: true`, and writes nothing. The same key with another request is 422 " +
    "`idempotency_key_reused`; while the first request still runs, 409 `idempotency_key_in_use`. " +
    "A 5xx or 429 answer frees the key. Ignored for anonymous callers. 1 to 255 visible ASCII characters.",
  schema: { type: "string", minLength: 1, maxLength: 257 },
};

/** The statuses a route with the header can answer besides its own. */
export const IDEMPOTENCY_STATUSES = [409, 422] as const;

/** `response` with the header a replay carries. */
export function replayable(response: OpenApiObject): OpenApiObject {
  return {
    ...response,
    headers: {
      // Beside the response's own (a create's ETag), not instead of them.
      ...(response.headers as OpenApiObject | undefined),
      "Idempotent-Replayed": {
        description:
          "`true` when this is the first response to the same Idempotency-Key, replayed.",
        schema: { type: "string", enum: ["true"] },
      },
    },
  };
}
