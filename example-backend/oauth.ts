/**
 * Sign-in for MCP clients with no pasted token: the built-in OAuth 2.1 authorization server
 * (`terreno-mcp/oauth`). `claude mcp add --transport http example http://127.0.0.1:4000/mcp`
 * (or the Inspector, Cursor, VS Code) discovers it from /mcp's 401, registers itself, and opens
 * the browser on this server's sign-in page, where the person uses their example account.
 */
import { createHmac } from "node:crypto";
import type { TerrenoPlugin } from "../src/index.js";
import { oauthServer } from "../src/oauth/index.js";
import { User } from "./models/User.js";

/**
 * The OAuth server's own secret, derived from the JWT secret: one secret to configure, and
 * neither can be worked out from the other.
 */
function oauthSecretFrom(jwtSecret: string): string {
  return createHmac("sha256", jwtSecret).update("terreno-example oauth").digest("hex");
}

/** `publicUrl`: the server's URL as clients reach it, the issuer (`http://127.0.0.1:4000`). */
export function exampleOAuth(options: {
  jwtSecret: string;
  /** `JWT_PREVIOUS_SECRETS`: the OAuth secrets derived from them open the stored signing keys. */
  previousSecrets?: string[];
  publicUrl: string;
}): TerrenoPlugin {
  return oauthServer({
    secret: oauthSecretFrom(options.jwtSecret),
    previousSecrets: options.previousSecrets?.map(oauthSecretFrom),
    issuer: options.publicUrl,
    userModel: User,
    appName: "terreno-example",
  });
}

/**
 * The URL clients reach the server at: `PUBLIC_URL` (behind a proxy or tunnel), else the host
 * and port it listens on, with a wildcard host read as this machine (127.0.0.1).
 */
export function publicUrlFrom(publicUrl: string | undefined, host: string, port: number): string {
  if (publicUrl?.trim()) return publicUrl.trim().replace(/\/+$/, "");
  const reachable = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return `http://${reachable.includes(":") ? `[${reachable}]` : reachable}:${port}`;
}
