/**
 * The MCP endpoint as an OAuth 2.0 protected resource (MCP authorization spec; RFC 9728):
 * its Protected Resource Metadata document, served at the well-known URL for the MCP path
 * (`/.well-known/oauth-protected-resource/mcp`) and at the root form, and the
 * `WWW-Authenticate: Bearer resource_metadata="…"` challenge every 401 from /mcp carries, which
 * is how an MCP client discovers where to get a token.
 */
import type { Request, Response } from "express";
import { MCP_SCOPES } from "../core/scopes.js";

export const PROTECTED_RESOURCE_WELL_KNOWN = "/.well-known/oauth-protected-resource";

export interface McpOAuthOptions {
  /**
   * Issuer identifiers of the authorization servers that issue tokens for this endpoint
   * (e.g. `https://tenant.auth0.com/`), listed as `authorization_servers`. Omitted when empty.
   */
  authorizationServers?: string[];
  /** `scopes_supported`. Default `["mcp:read", "mcp:write"]`. */
  scopesSupported?: string[];
  /** `resource_name`: a human-readable name shown by clients. */
  resourceName?: string;
  /** `resource_documentation`: a URL of documentation for developers. */
  resourceDocumentation?: string;
}

export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers?: string[];
  scopes_supported: string[];
  bearer_methods_supported: ["header"];
  resource_name?: string;
  resource_documentation?: string;
}

/** Checks a configured resource URL once, at build: absolute http(s), no query or fragment. */
export function checkResourceUrl(resourceUrl: string): string {
  let url: URL;
  try {
    url = new URL(resourceUrl);
  } catch {
    throw new Error(`mcp.resourceUrl "${resourceUrl}" is not an absolute URL.`);
  }
  if ((url.protocol !== "https:" && url.protocol !== "http:") || url.search || url.hash) {
    throw new Error(
      `mcp.resourceUrl "${resourceUrl}" must be an http(s) URL without query or fragment.`,
    );
  }
  return resourceUrl;
}

/**
 * The canonical URL of the MCP endpoint: `resourceUrl` when configured (set it in production),
 * else derived from the request's protocol and Host as Express reads them (so `X-Forwarded-*`
 * count only with `trust proxy` on), e.g. `http://127.0.0.1:4000/mcp`.
 */
export function mcpResourceUrl(
  req: Pick<Request, "protocol" | "get">,
  mcpPath: string,
  resourceUrl?: string,
): string {
  if (resourceUrl) return resourceUrl;
  const candidate = `${req.protocol}://${req.get("host") ?? "localhost"}${mcpPath}`;
  // A Host header that is no valid authority ("[", "a b") must not become a URL we build on.
  try {
    const url = new URL(candidate);
    if (url.pathname === mcpPath && url.search === "" && url.hash === "") return url.href;
  } catch {
    // fall through
  }
  return `${req.protocol}://localhost${mcpPath}`;
}

/** Where a resource's metadata lives (RFC 9728 §3.1): the well-known prefix before its path. */
export function resourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  return `${url.origin}${PROTECTED_RESOURCE_WELL_KNOWN}${path}`;
}

export function protectedResourceMetadata(
  resource: string,
  oauth: McpOAuthOptions = {},
): ProtectedResourceMetadata {
  const servers = oauth.authorizationServers ?? [];
  return {
    resource,
    ...(servers.length > 0 ? { authorization_servers: [...servers] } : {}),
    scopes_supported: [...(oauth.scopesSupported ?? MCP_SCOPES)],
    bearer_methods_supported: ["header"],
    ...(oauth.resourceName ? { resource_name: oauth.resourceName } : {}),
    ...(oauth.resourceDocumentation ? { resource_documentation: oauth.resourceDocumentation } : {}),
  };
}

const quoted = (value: string) => `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/**
 * The Bearer challenge of a 401 (RFC 6750 §3, RFC 9728 §5.1). `error` and `description` only
 * when a token was sent and refused; without any credentials the challenge names no error.
 */
export function bearerChallenge(options: {
  resourceMetadata: string;
  scopes?: readonly string[];
  error?: "invalid_token";
  description?: string;
}): string {
  const params: string[] = [];
  if (options.error) params.push(`error=${quoted(options.error)}`);
  if (options.error && options.description) {
    // error_description is limited to printable ASCII except `"` and `\`.
    const text = options.description.replace(/[^\x20-\x7e]|["\\]/g, "'");
    params.push(`error_description=${quoted(text)}`);
  }
  params.push(`resource_metadata=${quoted(options.resourceMetadata)}`);
  if (options.scopes && options.scopes.length > 0) {
    params.push(`scope=${quoted(options.scopes.join(" "))}`);
  }
  return `Bearer ${params.join(", ")}`;
}

/**
 * The metadata handler: JSON, readable from any origin (browser-based clients such as the MCP
 * Inspector fetch it cross-origin), answering preflights too.
 */
export function resourceMetadataHandler(
  mcpPath: string,
  options: { resourceUrl?: string; oauth?: McpOAuthOptions },
) {
  return (req: Request, res: Response) => {
    res.setHeader("Access-Control-Allow-Origin", "*");
    if (req.method === "OPTIONS") {
      res.setHeader("Access-Control-Allow-Methods", "GET, OPTIONS");
      res.setHeader("Access-Control-Allow-Headers", "*");
      res.status(204).end();
      return;
    }
    const resource = mcpResourceUrl(req, mcpPath, options.resourceUrl);
    // Derived from Host when no resourceUrl is set: a shared cache must not keep one answer.
    if (!options.resourceUrl) res.setHeader("Vary", "Host");
    res.json(protectedResourceMetadata(resource, options.oauth));
  };
}

/**
 * The MCP endpoint options with the plugins' own authorization servers added: each issuer joins
 * `authorization_servers`, and its resource becomes `resourceUrl` when none is configured. A
 * configured `resourceUrl` that differs is a configuration error: every token would be refused.
 */
export function withAuthorizationServers<
  Options extends { resourceUrl?: string; oauth?: McpOAuthOptions },
>(
  options: Options | undefined,
  servers: ReadonlyArray<{ issuer: string; resource: string }>,
): Options | undefined {
  if (servers.length === 0) return options;
  const [resource, ...others] = [...new Set(servers.map((server) => server.resource))];
  if (others.length > 0) {
    throw new Error(
      `Two authorization servers issue tokens for different MCP resources: ${[resource, ...others].join(", ")}.`,
    );
  }
  const configured = options?.resourceUrl;
  if (configured !== undefined && configured !== resource) {
    throw new Error(
      `mcp.resourceUrl "${configured}" differs from the authorization server's resource "${resource}": its tokens would all be refused.`,
    );
  }
  const listed = options?.oauth?.authorizationServers ?? [];
  const issuers = servers
    .map((server) => server.issuer)
    .filter((issuer) => !listed.includes(issuer));
  return {
    ...options,
    resourceUrl: resource,
    oauth: { ...options?.oauth, authorizationServers: [...listed, ...issuers] },
  } as Options;
}
