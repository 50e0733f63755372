/**
 * Why a Client ID Metadata Document was not used. The problem page maps each code to a fixed
 * sentence (problemMessages.ts); the message goes to the token endpoint's JSON, and the detail
 * (hosts, ports, errors) only to the log.
 *
 * Every way the fetch itself can fail (no answer, a refused or special-use address, a timeout,
 * a redirect, an oversize or non-JSON body, a status other than 200) is one code,
 * `client_metadata_unreachable`, with one message: separate codes told a caller whether a port
 * on some host is open, this server acting as its port scanner.
 */

export type ClientMetadataProblem =
  | "client_metadata_url"
  | "client_metadata_unreachable"
  | "client_metadata_rate_limited"
  | "client_metadata_invalid"
  | "client_metadata_mismatch"
  | "client_metadata_redirect_uri"
  | "client_metadata_auth_method";

export interface RefusalDetail {
  /** What happened, for the log only. */
  detail?: string;
  /** Seconds to wait (a rate limit). */
  retryAfterSeconds?: number;
  /** A refusal caused by this server's load, not the document: never remembered as a failure. */
  transient?: boolean;
}

export class ClientMetadataRefusal extends Error {
  constructor(
    readonly code: ClientMetadataProblem,
    message: string,
    readonly extra: RefusalDetail = {},
  ) {
    super(message);
    this.name = "ClientMetadataRefusal";
  }

  /** The message with its detail, for the log. */
  get logLine(): string {
    return this.extra.detail ? `${this.message} (${this.extra.detail})` : this.message;
  }
}
