/**
 * What the in-process tool surfaces (getMCPTools, the chat) need of an app: its services (the
 * tool definitions, and where calls report, spend and are traced). A TerrenoApp is one; so is
 * any object with these.
 */
import type { AppViews } from "./appViews/appViews.js";
import type { Services } from "./services.js";

export interface ToolHost {
  /** The app's services (`TerrenoApp.services`), its tool definitions among them. */
  readonly services: Services;
  /** The MCP Apps views of its tools, when `mcp: {apps: true}` (the chat renders them). */
  readonly appViews?: AppViews;
}
