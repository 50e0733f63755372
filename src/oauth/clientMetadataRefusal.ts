/**
 * Why a Client ID Metadata Document was not used: one code per cause. The problem page maps each
 * code to a fixed sentence (problemMessages.ts); the detail goes to the token endpoint's JSON
 * and the log, never onto the page.
 */

export type ClientMetadataProblem =
  | "client_metadata_url"
  | "client_metadata_address"
  | "client_metadata_unreachable"
  | "client_metadata_timeout"
  | "client_metadata_too_large"
  | "client_metadata_redirected"
  | "client_metadata_invalid"
  | "client_metadata_mismatch"
  | "client_metadata_redirect_uri"
  | "client_metadata_auth_method";

export class ClientMetadataRefusal extends Error {
  constructor(
    readonly code: ClientMetadataProblem,
    message: string,
  ) {
    super(message);
    this.name = "ClientMetadataRefusal";
  }
}
