/**
 * Where the MCP endpoint is served unless `mcp.path` says otherwise: the MCP plugin mounts it
 * there, and the OAuth server's tokens name it as their default resource (audience).
 */
export const DEFAULT_MCP_PATH = "/mcp";
