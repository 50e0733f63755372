/**
 * Where terreno-mcp caches what it builds (the FerretDB binary): per user, outside
 * node_modules, so a reinstall or a second project reuses it.
 */
import os from "node:os";
import path from "node:path";

/** The environment variable that moves the cache. */
export const CACHE_DIR_ENV = "TERRENO_MCP_CACHE_DIR";

/**
 * `$TERRENO_MCP_CACHE_DIR`, else `$XDG_CACHE_HOME/terreno-mcp`, else `~/.cache/terreno-mcp`
 * (the XDG base directory rule: a relative `XDG_CACHE_HOME` is ignored).
 */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env[CACHE_DIR_ENV];
  if (fromEnv) return path.resolve(fromEnv);
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, "terreno-mcp");
  return path.join(os.homedir(), ".cache", "terreno-mcp");
}
