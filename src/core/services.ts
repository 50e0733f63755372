/** The one place a RequestContext is made: the call's facts beside the app's services (`AppServices`, types.ts). */
import type { AppServices, RequestContext } from "./types.js";
import { workspaceAccess } from "./workspace.js";

/**
 * What a surface knows of one call. Values every call gets the same way (the services, a
 * per-call value set by `callContext`) are not among them, so adding one changes no surface.
 */
export type CallFacts = Pick<
  RequestContext,
  "user" | "transport" | "headers" | "raw" | "operation" | "scopes"
>;

/**
 * THE place a RequestContext is made, for every surface (REST routes, the tool-call runner for
 * MCP, AI tools and `POST /tools/<name>`, MCP completions, the chat's own reads): the call's
 * facts beside the app's services. A per-call value every surface should carry (a request id,
 * a workspace) is set here once (docs/development.md, "Adding a service").
 */
export function callContext(services: AppServices, facts: CallFacts): RequestContext {
  const context: RequestContext = { ...facts, services };
  if (services.workspaces) context.workspace = workspaceAccess(services.workspaces, facts);
  return context;
}
