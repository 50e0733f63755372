/**
 * What an MCP client's OAuthClientProvider keeps per server, in memory: its client information,
 * the tokens, the PKCE verifier and the authorization URL it was sent to. The OAuth suites'
 * providers extend it with their redirect URI and client metadata.
 */
export class MemoryOAuthState<Client, Tokens> {
  client?: Client;
  saved?: Tokens;
  verifier = "";
  authorizationUrl?: URL;

  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: Client) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: Tokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}
