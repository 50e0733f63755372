/**
 * What a TerrenoApp derives from its registrations, computed once when registration closes
 * (at build(), or when its tools or services are first read): the audit observer, the tool
 * definitions, the shared services and the MCP Apps views. Nothing is rebuilt afterwards, so
 * every surface of the app holds the very same objects.
 */
import type { Logger } from "../core/logger.js";
import type { PromptDefinition } from "../core/promptTypes.js";
import type { Resource } from "../core/resource.js";
import type { HiddenFieldsLookup, IdempotencyGuard, OperationObserver } from "../core/types.js";
import type { WorkspaceDirectory } from "../core/workspaceTypes.js";
import { type AuditSink, auditObserver } from "../ops/audit.js";
import type { ChangeLog } from "../ops/changeLog.js";
import type { RateLimits } from "../ops/rateLimit.js";
import { traceToolCall } from "../ops/telemetry.js";
import { versionClaims } from "../ops/versionClaims.js";
import type { TerrenoAppOptions } from "../plugin/options.js";
import type { TerrenoPlugin } from "../plugin/types.js";
import { withActionAndCustomTools } from "../tools/actionTools.js";
import { type AppViews, createAppViews } from "../tools/appViews/appViews.js";
import { withDiscoveryTools } from "../tools/discovery/discoveryTools.js";
import type { Services } from "../tools/services.js";
import { buildToolDefinitions, type ToolDefinition } from "../tools/toolDefinitions.js";
import { changeTools } from "./changeTools.js";

/** What the app has registered, and the parts of it the derived state is made from. */
export interface Registrations {
  options: TerrenoAppOptions;
  logger: Logger;
  plugins: readonly TerrenoPlugin[];
  resources: readonly Resource[];
  customTools: readonly ToolDefinition[];
  hiddenOf: HiddenFieldsLookup;
  rateLimits: RateLimits;
  idempotency: IdempotencyGuard;
  /** The app's prompts, checked (names, arguments); undefined when it has none. */
  prompts?: PromptDefinition[];
  /** The app's workspaces and memberships, when on. */
  workspaces?: WorkspaceDirectory;
  /** The change log, when `changes` is on: the observer stores every change there too. */
  changes?: ChangeLog;
}

export interface AppState {
  /** `onAudit` and the plugins' audit sinks behind one observer (undefined when there is none). */
  observer?: OperationObserver;
  /** Every tool definition of the app: the routers', actions, custom and discovery tools. */
  tools: ToolDefinition[];
  /** The app's shared services, handed whole to every surface. */
  services: Services;
  /** The MCP Apps views of the tools, when `mcp: {apps: true}`. */
  appViews?: AppViews;
}

export function deriveAppState(registered: Registrations): AppState {
  const { options, logger, rateLimits } = registered;
  const sinks: AuditSink[] = [];
  if (options.onAudit) sinks.push(options.onAudit);
  for (const plugin of registered.plugins) if (plugin.onAudit) sinks.push(plugin.onAudit);
  const observer = auditObserver(sinks, logger, registered.changes);

  const resources = registered.resources.filter((resource) => resource.options.mcp);
  const tools = withDiscoveryTools(
    withActionAndCustomTools(buildToolDefinitions(resources), resources, [
      ...registered.customTools,
      ...(registered.changes && options.mcp?.changes ? changeTools(registered.changes) : []),
    ]),
    resources,
    options.mcp?.discovery,
    options.userModel,
  );
  const services: Services = {
    ...(registered.prompts ? { prompts: registered.prompts } : {}),
    logger,
    ...(observer ? { observer } : {}),
    hiddenOf: registered.hiddenOf,
    ...(rateLimits.enabled ? { rateLimits } : {}),
    resources: registered.resources,
    tools,
    tracer: traceToolCall,
    versionClaims,
    idempotency: registered.idempotency,
    ...(registered.workspaces ? { workspaces: registered.workspaces } : {}),
  };
  return {
    ...(observer ? { observer } : {}),
    tools,
    services,
    ...(options.mcp?.apps ? { appViews: createAppViews(tools) } : {}),
  };
}
