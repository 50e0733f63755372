/** Types the chat plugin's files share; its own file so none of them imports chatPlugin.ts back. */
import type { Logger } from "../core/logger.js";
import type { RateLimitWindow } from "../core/types.js";
import type { RateLimit } from "../ops/rateLimit.js";
import type { ToolHost } from "../tools/toolHost.js";

/** Which tool calls wait for the person's approval in the chat; see `ChatPluginOptions.approval`. */
export type ChatApproval = "writes" | "destructive" | "none";

/**
 * What the chat needs of the app whose tools it calls (the AppContext chatPlugin is registered
 * with is one): its tools and where their calls report and spend, the logger, and a named
 * limiter for `POST /chat`.
 */
export interface ChatApp extends ToolHost {
  readonly logger: Logger;
  rateLimiter(name: string, window: RateLimitWindow): RateLimit;
}
