/**
 * Whether an OAuth client's identity is verified, and for which host: the one answer the
 * consent page, the authorization endpoint's error handling and the connected-apps list share.
 * A dynamically registered client named itself (anyone can register "Claude Code"); a Client ID
 * Metadata Document client is vouched for by the https host that serves its document.
 */

/** The `clientDiscoveryId` the built-in CIMD discovery stores on the clients it resolves. */
export const CIMD_DISCOVERY_ID = "terreno-cimd";

/** The fields of a stored client (Better Auth's `oauthClient`) the decision reads. */
export interface ClientIdentity {
  clientId: string;
  clientDiscoveryId?: string | null;
}

export interface ClientTrust {
  /** True only when something other than the client vouches for who it is. */
  verified: boolean;
  /** "verified" or "unverified", as shown to people. */
  label: "verified" | "unverified";
  /** The host that vouches for a verified client (its metadata document's host). */
  host?: string;
}

/** A Client ID Metadata Document's URL: https, with a path, no fragment or credentials. */
function isMetadataDocumentUrl(clientId: string): boolean {
  if (!clientId.startsWith("https://")) return false;
  try {
    const url = new URL(clientId);
    return url.pathname !== "/" && !url.hash && !url.username && !url.password;
  } catch {
    return false;
  }
}

export function clientTrust(client: ClientIdentity): ClientTrust {
  if (client.clientDiscoveryId === CIMD_DISCOVERY_ID && isMetadataDocumentUrl(client.clientId)) {
    return { verified: true, label: "verified", host: new URL(client.clientId).host };
  }
  return { verified: false, label: "unverified" };
}
