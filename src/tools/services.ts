/**
 * The app's services with its concrete tools and resources: what TerrenoApp builds once and
 * every surface (REST, /mcp, AI tools, the chat) receives whole. The type is the core's
 * `AppServices` (src/core/types.ts); only its type parameters are filled in here.
 */
import type { Resource } from "../core/resource.js";
import type { AppServices } from "../core/types.js";
import type { ToolDefinition } from "./toolDefinitions.js";

export type Services = AppServices<ToolDefinition, Resource>;
