/**
 * `tools/list` with the catalog serialized once. A catalog is large (every tool's schemas:
 * about 1.4 MB for 200 models) and the same for every caller who sees the same tools, but the
 * SDK JSON-serializes each reply anew (`Response.json`), which was most of a `tools/list`'s
 * time. The SDK has no way to hand it bytes, so the reply is spliced around it instead:
 *
 * 1. the HTTP handler arms a slot for a `tools/list` request, keyed by its `McpRequestState`
 *    (requestState.ts: the one object that reaches both the handler and the server factory);
 * 2. the `tools/list` handler finds the slot, leaves the catalog's bytes in it and returns an
 *    empty `{tools: []}`, so the SDK does everything else as always (protocol checks, era,
 *    `resultType`/`ttlMs`/`cacheScope`, `_meta`, the id, errors);
 * 3. the handler takes the SDK's small JSON reply and writes it back with `"tools"` set to the
 *    catalog's bytes, written to the socket as they are (no copy).
 *
 * Without an armed slot (a factory used elsewhere) the handler returns the full result object
 * and nothing is spliced: the same answer, serialized by the SDK.
 */

export interface ToolsListSlot {
  /** The serialized `tools` array the reply must carry, left by the `tools/list` handler. */
  tools?: Uint8Array;
}

const slots = new WeakMap<object, ToolsListSlot>();

/** A `tools/list` reply whose tools array is serialized once, on first use, and then reused. */
export interface CatalogReply<R extends { tools: unknown[] }> {
  result: R;
  /** `JSON.stringify(result.tools)` as UTF-8; built on the first spliced reply. */
  bytes(): Uint8Array;
}

export function catalogReply<R extends { tools: unknown[] }>(result: R): CatalogReply<R> {
  let bytes: Uint8Array | undefined;
  return {
    result,
    bytes() {
      bytes ??= Buffer.from(JSON.stringify(result.tools));
      return bytes;
    },
  };
}

/** Step 1: for a `tools/list` request with a request state, a slot to splice into. */
export function armToolsListSlot(
  parsedBody: unknown,
  state: object | undefined,
): ToolsListSlot | undefined {
  if (!state || (parsedBody as { method?: unknown } | null)?.method !== "tools/list") {
    return undefined;
  }
  const slot: ToolsListSlot = {};
  slots.set(state, slot);
  return slot;
}

/**
 * Step 2, in the `tools/list` handler: the result to return to the SDK. With an armed slot,
 * an empty list (the bytes wait in the slot); without one, the full result.
 */
export function toolsListResult<R extends { tools: unknown[] }>(
  reply: CatalogReply<R>,
  state: object | undefined,
): R | { tools: [] } {
  const slot = state ? slots.get(state) : undefined;
  if (!slot || slot.tools) return reply.result;
  slot.tools = reply.bytes();
  return { tools: [] };
}

const encoder = new TextEncoder();

function internalError(id: unknown): Response {
  return Response.json(
    { jsonrpc: "2.0", id: id ?? null, error: { code: -32603, message: "Internal error" } },
    { status: 500 },
  );
}

/** Step 3: the SDK's reply with the slot's tools spliced in (unchanged when the slot is empty). */
export async function spliceToolsList(response: Response, slot: ToolsListSlot): Promise<Response> {
  const { tools } = slot;
  if (!tools) return response;
  const type = response.headers.get("content-type") ?? "";
  // Our handlers send nothing before their result, so the SDK answers JSON. Anything else
  // would carry the empty placeholder list: never send that as if it were the catalog.
  if (!type.includes("application/json")) {
    await response.body?.cancel();
    return internalError(undefined);
  }
  const message = (await response.json()) as {
    id?: unknown;
    result?: { tools?: unknown };
    [key: string]: unknown;
  };
  const { result, ...rest } = message;
  if (!result || !Array.isArray(result.tools) || result.tools.length > 0) {
    // Not the placeholder's reply (an error, say): send what the SDK said.
    return new Response(JSON.stringify(message), {
      status: response.status,
      headers: response.headers,
    });
  }
  const { tools: _placeholder, ...resultRest } = result;
  // `{...rest, "result": {...resultRest, "tools": <bytes>}}`, with "result" written last.
  const head = JSON.stringify({ ...rest, result: resultRest });
  const open = `${head.slice(0, -2)}${Object.keys(resultRest).length > 0 ? "," : ""}"tools":`;
  const chunks = [encoder.encode(open), tools, encoder.encode("}}")];
  const headers = new Headers(response.headers);
  headers.set("content-length", String(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0)));
  // A stream of the three chunks, so the catalog's bytes are written as they are, never copied
  // (a Response built from one buffer copies it). Nothing writes to them: they are shared.
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  return new Response(body, { status: response.status, headers });
}
