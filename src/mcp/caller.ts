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
   * Set by `tools/call` when the runner refused the call for a reason HTTP states itself
   * (429 + Retry-After): the endpoint answers with this status and these headers
   * (httpHandler.ts), around the JSON-RPC error.
   */
  httpRefusal?: TerrenoError;
  /** Told when `httpRefusal` is set (the endpoint records the error code for telemetry). */
  onHttpRefusal?: (error: TerrenoError) => void;
}
