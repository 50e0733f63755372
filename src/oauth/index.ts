/**
 * `terreno-mcp/oauth`: the built-in OAuth 2.1 authorization server for the MCP endpoint, from
 * Better Auth's `@better-auth/mcp` and `jwt()` plugins. Like `terreno-mcp/better-auth`, this is
 * the only entry point that loads them (optional peer dependencies): the package root never does.
 */
export { type OAuthAccessTokenOptions, oauthAccessTokenProvider } from "./accessTokens.js";
export type { OAuthInstance } from "./authInstance.js";
export {
  type ClientMetadataDocumentOptions,
  DEFAULT_OAUTH_BASE_PATH,
  DEFAULT_OAUTH_SCOPES,
  type OAuthServerOptions,
  type OAuthServerPlugin,
  oauthServer,
} from "./oauthServer.js";
export { APP_USER_ID_CLAIM } from "./sessionBridge.js";
