/**
 * The MCP driver: a real SDK client per actor over HTTP. `isError` results carry the error
 * body after their first line; protocol errors (JSON-RPC) and HTTP refusals (401 before any
 * session) are mapped to codes through ERROR_TABLE.
 */
import {
  type ClientKind,
  connectClient,
  type McpTestClient,
  type ToolCallOutcome,
  toolError,
} from "../../helpers/mcpClients.js";
import {
  codeForJsonRpc,
  codeForStatus,
  type Failure,
  failureFromBody,
  type Outcome,
  statusOf,
  successFromBody,
} from "../outcome.js";
import type { World } from "../world.js";
import { sessionDriver } from "./toolDriver.js";
import type { Driver } from "./types.js";

/** The JSON-RPC error code inside an HTTP error's body text, if it has one. */
function jsonRpcCodeIn(text: unknown): number | undefined {
  if (typeof text !== "string") return undefined;
  try {
    const code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
    return typeof code === "number" ? code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A thrown client error as a Failure: a JSON-RPC error (a protocol-level tool failure such as
 * `internal`) by its JSON-RPC code, an HTTP refusal before any session (e.g. 401) by the
 * JSON-RPC code in its body or else its status. v1 puts the HTTP status in `code`; v2 in
 * `data.status`, with the body in `data.text`.
 */
export function failureFromThrown(error: unknown): Failure {
  const { code, message, data } = error as {
    code?: unknown;
    message?: unknown;
    data?: { status?: unknown; text?: unknown };
  };
  const text = String(message ?? error);
  const raw = `${text} ${JSON.stringify(error)}`;
  // A protocol error may carry the error body itself (`data.error`).
  const body = (data as { error?: { code?: unknown } } | undefined)?.error;
  if (typeof body?.code === "string") return failureFromBody(body, raw);
  const jsonRpc = typeof code === "number" && code < 0 ? code : jsonRpcCodeIn(data?.text);
  const httpStatus =
    typeof data?.status === "number"
      ? data.status
      : typeof code === "number" && code > 0
        ? code
        : undefined;
  const mapped =
    (jsonRpc !== undefined ? codeForJsonRpc(jsonRpc) : undefined) ??
    (httpStatus !== undefined ? codeForStatus(httpStatus) : undefined);
  if (!mapped) throw new Error(`unmapped MCP client error: ${raw}`);
  return { ok: false, status: statusOf(mapped), code: mapped, detail: text, raw };
}

function normalize(result: ToolCallOutcome): Outcome {
  const raw = JSON.stringify(result);
  if (result.isError) return failureFromBody(toolError(result), raw);
  return successFromBody((result.structuredContent ?? {}) as Record<string, unknown>, raw);
}

export function mcpDriver(world: World, kind: ClientKind): Driver {
  return sessionDriver(`mcp ${kind}`, async (as) => {
    let client: McpTestClient | undefined;
    try {
      const token = as === "anon" ? undefined : world.accounts[as].token;
      const connected = await connectClient(kind, world.server.url, token);
      client = connected;
      const offered = (await connected.listTools()).map((tool) => tool.name);
      return {
        offered,
        call: async (name, input) => {
          try {
            return normalize(await connected.callTool(name, input));
          } catch (error) {
            return failureFromThrown(error);
          }
        },
        close: () => connected.close(),
      };
    } catch (error) {
      return { refused: failureFromThrown(error), close: async () => client?.close() };
    }
  });
}
