/**
 * The app's services with its concrete tools and resources: what TerrenoApp builds once and
 * every surface (REST, /mcp, AI tools, the chat) receives whole. The type is the core's
 * `AppServices` (src/core/types.ts); only its type parameters are filled in here.
 */
import { consoleLogger } from "../core/logger.js";
import type { PromptDefinition } from "../core/promptTypes.js";
import type { Resource } from "../core/resource.js";
import type { AppServices } from "../core/types.js";
import { traceToolCall } from "../ops/telemetry.js";
import type { ToolDefinition } from "./toolDefinitions.js";

export type Services = AppServices<ToolDefinition, Resource> & {
  /** The app's prompts (`app.prompt(...)`), built once; served by /mcp and getMCPPrompts(). */
  prompts?: readonly PromptDefinition[];
};

/**
 * The services of a router or tool outside any app: console logging, no audit observer, no
 * rate limits, no other routers' hidden fields; tool calls are traced as in an app.
 */
export const STANDALONE_SERVICES: Services = {
  logger: consoleLogger,
  resources: [],
  tools: [],
  tracer: traceToolCall,
};
