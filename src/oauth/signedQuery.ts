/**
 * The authorization request the sign-in, sign-up and consent pages are opened with, checked as
 * the provider checks it when the form is posted: its `sig` (HMAC over the sorted parameters,
 * duplicates included) and `exp`. What a page shows about the request (who asks, where the code
 * goes) comes from a query that passed, never from one a link changed: a `redirect_uri` put in
 * front of the signed one made the consent heading name another host.
 */
import { constantTimeEqual, makeSignature } from "better-auth/crypto";
import type { OAuthInstance } from "./authInstance.js";

/** The parameters sorted by name, then value: what the provider signs. */
function canonical(params: URLSearchParams): string {
  const sorted = [...params.entries()].sort(([keyA, valueA], [keyB, valueB]) =>
    keyA === keyB ? (valueA < valueB ? -1 : valueA > valueB ? 1 : 0) : keyA < keyB ? -1 : 1,
  );
  return new URLSearchParams(sorted).toString();
}

/** The request's parameters when `oauthQuery` is as the provider signed it and not expired. */
export async function verifiedQuery(
  auth: OAuthInstance,
  oauthQuery: string,
): Promise<URLSearchParams | undefined> {
  const params = new URLSearchParams(oauthQuery);
  const signatures = params.getAll("sig");
  const expires = Number(params.get("exp"));
  if (signatures.length !== 1 || !Number.isFinite(expires) || expires * 1000 < Date.now()) {
    return undefined;
  }
  params.delete("sig");
  const { secret } = await auth.$context;
  const expected = await makeSignature(canonical(params), secret);
  return constantTimeEqual(signatures[0], expected) ? new URLSearchParams(oauthQuery) : undefined;
}
