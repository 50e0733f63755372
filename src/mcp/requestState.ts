/**
 * What one /mcp request carries from the Express middleware (resolveMcpCaller.ts) through the
 * SDK to the per-request server (mcpServerFactory.ts) and back out (httpHandler.ts): who is
 * calling, and the refusal HTTP states itself, when a call met one. It is bound to the Express
 * request, and then to the web `Request` the SDK hands the server factory as `requestInfo` and
 * the handlers as `http.req`; `mcpRequestState()` reads it from either.
 */
import type { Response } from "express";
import type { TerrenoError } from "../core/errors.js";
import { setErrorCode } from "../http/errorCode.js";
import type { McpCaller } from "./caller.js";
import { TerrenoProtocolError } from "./toolResult.js";

export class McpRequestState {
  #refusal: TerrenoError | undefined;
  readonly caller: McpCaller;
  readonly #res: Response | undefined;

  /** `res`: the Express response, where the refusal's code is recorded for telemetry. */
  constructor(caller: McpCaller, res?: Response) {
    this.caller = caller;
    this.#res = res;
  }

  /**
   * The refusal this request is answered with under its own HTTP status and headers (429 +
   * Retry-After), around the JSON-RPC error (httpHandler.ts).
   */
  get refusal(): TerrenoError | undefined {
    return this.#refusal;
  }

  /** Answers this request with `error`'s HTTP status, and counts it under its code. */
  refuse(error: TerrenoError): void {
    this.#refusal = error;
    if (this.#res) setErrorCode(this.#res, error.code);
  }

  /**
   * Told what a handler threw: a rate limit (every method that spends points: `tools/call`,
   * `resources/read`, `resources/list`, `completion/complete`) is answered with 429 +
   * Retry-After, whichever method met it.
   */
  noteThrown(thrown: unknown): void {
    if (thrown instanceof TerrenoProtocolError && thrown.failure.code === "rate_limited") {
      this.refuse(thrown.failure);
    }
  }
}

/** Keyed by the Express request, then by the web `Request` the SDK passes on. */
const states = new WeakMap<object, McpRequestState>();

/** Binds `state` to a request (Express's, or the web `Request` built from it). */
export function bindMcpRequestState(request: object, state: McpRequestState): void {
  states.set(request, state);
}

/** The state bound to this request, if any (a server factory used elsewhere has none). */
export function mcpRequestState(request: object | undefined): McpRequestState | undefined {
  return request ? states.get(request) : undefined;
}
