/** Who is calling /mcp, resolved once per request (resolveMcpCaller.ts) and read by every handler. */
import type { TerrenoError } from "../core/errors.js";
import type { User } from "../core/types.js";

export interface McpCaller {
  user?: User;
  headers: Readonly<Record<string, string | undefined>>;
  /** The client address, for the rate limits. */
  ip?: string;
  /** Set when the caller could not be resolved (the database is down): every call fails with it. */
  failure?: TerrenoError;
  /**
   * Set (by `httpRefusal()`) when a call was refused for a reason HTTP states itself
   * (429 + Retry-After): the endpoint answers with this status and these headers
   * (httpHandler.ts), around the JSON-RPC error.
   */
  httpRefusal?: TerrenoError;
  /**
   * Told when the endpoint answers a refusal with its own HTTP status (`httpRefusal`, a refused
   * elicitation answer): the endpoint records the error code for telemetry.
   */
  onHttpRefusal?: (error: TerrenoError) => void;
}

/**
 * Marks a refusal HTTP states itself (a rate limit: 429 + Retry-After) on the caller, so the
 * endpoint answers the JSON-RPC error with that status; every method that spends points
 * (`tools/call`, `resources/read`, `resources/list`, `completion/complete`) answers alike.
 */
export function httpRefusal(caller: McpCaller, error: TerrenoError): void {
  if (error.code !== "rate_limited") return;
  caller.httpRefusal = error;
  caller.onHttpRefusal?.(error);
}
