/**
 * What the problem page says, chosen by error code from a fixed list. The page is on the
 * server's trusted origin, so it never shows text from the query: anyone can link to it with an
 * `error_description` of their choosing ("call this number to unlock your account").
 */

const MESSAGES: Record<string, string> = {
  invalid_client: "This application is not registered with this server.",
  client_disabled: "This application has been disabled.",
  unauthorized_client: "This application may not sign in this way.",
  invalid_redirect: "This application asked to return to an address it never registered.",
  invalid_scope: "This application asked for permissions this server does not offer.",
  invalid_request: "The sign-in request was incomplete or malformed.",
  invalid_target: "This application asked for access to a resource this server does not serve.",
  unsupported_response_type:
    "This application asked for a kind of answer this server does not give.",
  access_denied: "Access was denied.",
  login_required: "You need to sign in first.",
  consent_required: "You need to approve this application first.",
  interaction_required: "This sign-in needs you to take part.",
  invalid_client_metadata: "This application's description could not be used.",
  // Client ID Metadata Documents (clientMetadataRefusal.ts).
  client_metadata_url:
    "This application's identifier must be an https address with a path, and no fragment or credentials.",
  client_metadata_unreachable: "This application's description could not be fetched.",
  client_metadata_rate_limited:
    "Too many application descriptions were fetched for your network address. Wait a minute and try again.",
  client_metadata_invalid:
    "This application's description is not a valid client metadata document.",
  client_metadata_mismatch:
    "This application's description names a different client than the address it was fetched from.",
  client_metadata_redirect_uri:
    "This application asked to return to an address its description does not list.",
  client_metadata_auth_method:
    "This application's description asks for a kind of client authentication this server does not offer.",
};

const FALLBACK = "The sign-in request was refused.";

/** The code as shown (only when it is on the list), and its fixed message. */
export function problemMessage(code: unknown): { code?: string; message: string } {
  if (typeof code === "string" && Object.hasOwn(MESSAGES, code)) {
    return { code, message: MESSAGES[code] };
  }
  return { message: FALLBACK };
}
