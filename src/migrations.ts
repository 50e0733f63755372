/**
 * `terreno-mcp/migrations`: helpers for an app's migrations, kept out of the package root. Each
 * creates the indexes of one of the framework's own collections on the given connection, for
 * apps that run with Mongoose's `autoIndex` off.
 */
export { ensureAccessTokenIndexes } from "./auth/personalTokens.js";
export { ensureRefreshTokenIndexes } from "./auth/sessions.js";
