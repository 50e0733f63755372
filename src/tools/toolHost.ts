/**
 * What the in-process tool surfaces (getMCPTools, the chat) need of an app: its tool
 * definitions and where calls report and spend. A TerrenoApp is one; so is any object with these.
 */
import type { Logger } from "../core/logger.js";
import type { OperationObserver } from "../core/observe.js";
import type { HiddenFieldsLookup } from "../core/types.js";
import type { RateLimits } from "../ops/rateLimit.js";
import type { AppViews } from "./appViews/appViews.js";
import type { ToolDefinition } from "./toolDefinitions.js";

export interface ToolHost {
  /** The app's tool definitions (`TerrenoApp.toolDefinitions`). */
  readonly toolDefinitions: readonly ToolDefinition[];
  readonly logger?: Logger;
  /** The app's audit observer: tool writes reach its `onAudit` sinks. */
  readonly observer?: OperationObserver;
  /** The app's routers' hidden fields: another model's documents leave as its routers show them. */
  readonly hiddenOf?: HiddenFieldsLookup;
  /** The app's rate limits: tool calls spend the same points as on /mcp. */
  readonly rateLimits?: Pick<RateLimits, "enabled" | "consume">;
  /** The MCP Apps views of its tools, when `mcp: {apps: true}` (the chat renders them). */
  readonly appViews?: AppViews;
}
