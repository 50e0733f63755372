/**
 * Issue #33.15 with the real client: `@ai-sdk/mcp` 2 signs in through its own OAuth flow
 * (discovery, dynamic registration for the authorization_code and refresh_token grants, PKCE)
 * asking only for `mcp:read mcp:write`, and keeps working past its access token's lifetime by
 * refreshing instead of sending the person back to sign in. The lifetime is set to one second
 * so the test outlives it.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import {
  auth,
  createMCPClient,
  type OAuthAuthorizationServerInformation,
  type OAuthClientInformation,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthTokens,
} from "@ai-sdk/mcp";
import { useTestDatabase } from "../helpers/database.js";
import { mcpStatusWith } from "../helpers/oauthFlow.js";
import { signInAndConsent } from "./httpFlow.js";
import { CALLBACK, type OAuthTestServer, PASSWORD, signUp, startOAuthApp } from "./oauthApp.js";

useTestDatabase("oauth_ai_sdk_refresh");

const EMAIL = "ai-sdk-refresh@example.com";
/** Past the token's one second and the server's two seconds of clock leeway. */
const OUTLIVE_MS = 4_000;

/** An in-memory provider, as an app using `@ai-sdk/mcp` keeps one per server. */
class MemoryProvider implements OAuthClientProvider {
  client?: OAuthClientInformation;
  saved: OAuthTokens[] = [];
  verifier = "";
  server?: OAuthAuthorizationServerInformation;
  authorizationUrl?: URL;
  /** How often the person was sent to sign in. */
  signIns = 0;
  get redirectUrl() {
    return CALLBACK;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "AI SDK app",
      redirect_uris: [CALLBACK],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  isClientInformationDynamicallyRegistered() {
    return this.client !== undefined;
  }
  saveClientInformation(client: OAuthClientInformation) {
    this.client = client;
  }
  tokens() {
    return this.saved.at(-1);
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved.push(tokens);
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
    this.signIns++;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  authorizationServerInformation() {
    return this.server;
  }
  saveAuthorizationServerInformation(server: OAuthAuthorizationServerInformation) {
    this.server = server;
  }
}

describe("@ai-sdk/mcp over OAuth, past the access token's lifetime", () => {
  let server: OAuthTestServer;
  before(async () => {
    server = await startOAuthApp({ accessTokenTtlSeconds: 1 });
    await signUp(server.url, EMAIL);
  });
  after(() => server.close());

  test("it refreshes and keeps calling tools without a new sign-in", async () => {
    const provider = new MemoryProvider();
    const connect = () =>
      createMCPClient({
        transport: { type: "http", url: server.mcpUrl, authProvider: provider },
      });

    // First contact: a 401 sends the person to the authorization URL.
    await assert.rejects(connect());
    assert.ok(provider.authorizationUrl, "the client started authorization");
    assert.equal(provider.authorizationUrl.searchParams.get("scope"), "mcp:read mcp:write");
    const landed = await signInAndConsent(provider.authorizationUrl.href, {
      email: EMAIL,
      password: PASSWORD,
    });
    const callback = new URL(landed.location ?? "about:blank");
    const code = callback.searchParams.get("code");
    assert.ok(code, `no code: ${landed.status} ${landed.body.slice(0, 200)}`);
    const result = await auth(provider, {
      serverUrl: server.mcpUrl,
      authorizationCode: code,
      callbackIssuer: callback.searchParams.get("iss") ?? undefined,
    });
    assert.equal(result, "AUTHORIZED");
    const first = provider.tokens();
    assert.ok(first?.refresh_token, `no refresh token: ${JSON.stringify(first)}`);

    const client = await connect();
    try {
      assert.ok((await client.listTools()).tools.length > 0);
      await sleep(OUTLIVE_MS);
      assert.equal(await mcpStatusWith(server.url, first.access_token), 401, "the token expired");
      // The same client carries on: it refreshes on the 401 and retries.
      const listed = await client.listTools();
      assert.ok(listed.tools.length > 0);
    } finally {
      await client.close();
    }
    assert.ok(provider.saved.length >= 2, "the client saved refreshed tokens");
    assert.notEqual(provider.tokens()?.access_token, first.access_token);
    assert.equal(provider.signIns, 1, "the person was sent to sign in again");
  });
});
