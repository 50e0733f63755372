/**
 * The checks a fetched Client ID Metadata Document must pass before it becomes a client: it is
 * client metadata (the provider's own schema), its `client_id` is the URL it was fetched from,
 * character for character, its fields are within the length caps (clientMetadataLimits.ts), it
 * lists redirect URIs, and it describes a public client (no secret, no key: this server offers
 * CIMD clients only `token_endpoint_auth_method: none`, with PKCE).
 */
import { type OAuthClient, oauthClientMetadataSchema } from "@better-auth/oauth-provider";
import { isForbiddenCimdClientMetadataField } from "@better-auth/oauth-provider/internal";
import { clientMetadataTooLong } from "./clientMetadataLimits.js";
import { ClientMetadataRefusal } from "./clientMetadataRefusal.js";

const GRANTS = new Set(["authorization_code", "refresh_token"]);

const invalid = (message: string) => new ClientMetadataRefusal("client_metadata_invalid", message);

/** The document as client metadata for `clientId`, or a refusal naming what is wrong. */
export function clientMetadataFrom(document: unknown, clientId: string): OAuthClient {
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    throw invalid("the document is not a JSON object");
  }
  const fields = document as Record<string, unknown>;
  if (fields.client_id !== clientId) {
    throw new ClientMetadataRefusal(
      "client_metadata_mismatch",
      `the document's client_id ${JSON.stringify(fields.client_id)} is not its URL ${clientId}`,
    );
  }
  const tooLong = clientMetadataTooLong(fields);
  if (tooLong) throw invalid(tooLong);
  const forbidden = Object.keys(fields).filter(isForbiddenCimdClientMetadataField);
  if (forbidden.length > 0) {
    throw invalid(`a metadata document must not contain ${forbidden.join(", ")}`);
  }
  const method = fields.token_endpoint_auth_method ?? "none";
  if (method !== "none" || fields.jwks !== undefined || fields.jwks_uri !== undefined) {
    throw new ClientMetadataRefusal(
      "client_metadata_auth_method",
      `token_endpoint_auth_method ${JSON.stringify(method)}: only public clients ("none") are accepted`,
    );
  }
  const parsed = oauthClientMetadataSchema.safeParse(document);
  if (!parsed.success) {
    const where = parsed.error.issues[0]?.path.join(".") || "the document";
    throw invalid(`${where}: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  }
  const metadata = parsed.data;
  if (!metadata.redirect_uris?.length) throw invalid("redirect_uris must list at least one URI");
  const grants = metadata.grant_types ?? ["authorization_code"];
  if (!grants.every((grant) => GRANTS.has(grant))) {
    throw invalid("grant_types may only be authorization_code and refresh_token");
  }
  return { ...metadata, token_endpoint_auth_method: "none" } as OAuthClient;
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The URI without its port when it is http on a loopback host (RFC 8252 §7.3: any port). */
function withoutLoopbackPort(uri: string): string | undefined {
  try {
    const url = new URL(uri);
    if (url.protocol !== "http:" || !LOOPBACK_HOSTS.has(url.hostname)) return undefined;
    url.port = "";
    return url.href;
  } catch {
    return undefined;
  }
}

/** Whether `requested` is one of the document's redirect URIs (loopback ports may differ). */
export function listsRedirectUri(metadata: OAuthClient, requested: string): boolean {
  const listed = metadata.redirect_uris ?? [];
  if (listed.includes(requested)) return true;
  const loose = withoutLoopbackPort(requested);
  return loose !== undefined && listed.some((uri) => withoutLoopbackPort(uri) === loose);
}

/**
 * How long the document may be reused, in seconds, from its Cache-Control: `no-store` and
 * `no-cache` mean 0 (fetched again on next use), `s-maxage` (this server is a shared cache)
 * before `max-age`; none given means `fallback`. Never more than `ceiling`.
 */
export function freshnessSeconds(
  cacheControl: string | undefined,
  fallback: number,
  ceiling: number,
): number {
  if (!cacheControl) return Math.min(fallback, ceiling);
  const directives = new Map<string, string | undefined>();
  for (const part of cacheControl.toLowerCase().split(",")) {
    const [name, value] = part.trim().split("=", 2);
    if (name) directives.set(name, value?.replace(/^"|"$/g, ""));
  }
  if (directives.has("no-store") || directives.has("no-cache")) return 0;
  for (const name of ["s-maxage", "max-age"]) {
    const value = directives.get(name);
    if (value !== undefined && /^\d+$/.test(value)) return Math.min(Number(value), ceiling);
  }
  return Math.min(fallback, ceiling);
}
