/**
 * The client an authorization request names, as the sign-in and consent pages show it: its
 * self-chosen name, whether anything vouches for it (`clientTrust`), and where its code goes.
 */
import type { OAuthInstance } from "./authInstance.js";
import { clientTrust } from "./clientTrust.js";
import { type ClientView, returnTarget } from "./pages.js";

interface StoredClient {
  clientId: string;
  clientDiscoveryId?: string | null;
  name?: string;
}

/** The stored client of `client_id` in `oauthQuery`, or undefined when there is none. */
export async function clientViewOf(
  auth: OAuthInstance,
  params: URLSearchParams,
): Promise<ClientView | undefined> {
  const clientId = params.get("client_id");
  if (!clientId) return undefined;
  const { adapter } = await auth.$context;
  const client = await adapter.findOne<StoredClient>({
    model: "oauthClient",
    where: [{ field: "clientId", value: clientId }],
  });
  if (!client) return undefined;
  return {
    name: client.name || clientId,
    trust: clientTrust(client),
    returnTo: returnTarget(params.get("redirect_uri")),
  };
}
