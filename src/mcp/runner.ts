/** The tool-call runner's options for /mcp: one per app, shared by `tools/call` and the resources. */
import type { Logger } from "../core/logger.js";
import type { OperationObserver } from "../core/observe.js";
import type { HiddenFieldsLookup } from "../core/types.js";
import type { RateLimits } from "../ops/rateLimit.js";
import type { ToolRunnerOptions } from "../tools/runToolCall.js";

export function mcpRunner(
  logger: Logger,
  /** Told about every write (TerrenoApp's audit observer). */
  observer?: OperationObserver,
  /** The app's rate limits: every call spends the caller's tool-call points. */
  rateLimits?: Pick<RateLimits, "consume">,
  /** The app's routers' hidden fields (RequestContext.hiddenOf). */
  hiddenOf?: HiddenFieldsLookup,
): ToolRunnerOptions {
  return {
    surface: "mcp",
    logger,
    ...(observer ? { observer } : {}),
    ...(hiddenOf ? { hiddenOf } : {}),
    ...(rateLimits ? { rateLimit: { limits: rateLimits, spend: "toolCall" as const } } : {}),
  };
}
