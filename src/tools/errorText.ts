/** A failed tool call as a model reads it, identical on MCP (`isError`) and in AI SDK tools. */
import type { ErrorBody } from "../core/errors.js";

/** One line to act on (`code: detail path: reason.`), then the machine-readable body. */
export function errorText(body: ErrorBody): string {
  const fields = body.fields
    ? ` ${Object.entries(body.fields)
        .map(([path, reason]) => `${path}: ${reason}`)
        .join("; ")}.`
    : "";
  return `${body.code}: ${body.detail}${fields}\n${JSON.stringify({ error: body })}`;
}
