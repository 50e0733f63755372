/**
 * The example's chat: the framework's chatPlugin (`terreno-mcp/chat`) with its defaults
 * (approval before every write, stored conversations, a per-user rate limit) and a
 * `search_docs` tool over this repository's README and guides (docs/), so "how do I connect
 * Claude Code?" is answered from the docs it ships.
 */
import type { LanguageModel } from "ai";
import {
  type ChatRateLimitOptions,
  chatPlugin,
  DEFAULT_CHAT_SYSTEM,
} from "../../src/chat/index.js";
import type { TerrenoPlugin } from "../../src/index.js";
import { exampleDocPaths, REPO_ROOT } from "../paths.js";

export interface ExampleChatOptions {
  model: LanguageModel;
  /** How the page names the model; default the plugin's (the model id, or the demo's label). */
  label?: string;
  /** The per-user chat limit; default the plugin's (10 requests per 10 s). */
  rateLimit?: ChatRateLimitOptions;
}

const ABOUT_THE_APP =
  "This app keeps each user's todos and a food log everyone signed in can read. " +
  "For questions about the app itself (connecting MCP clients, the API, settings), use search_docs.";

export function exampleChat(options: ExampleChatOptions): TerrenoPlugin {
  return chatPlugin({
    model: options.model,
    ...(options.label ? { modelLabel: options.label } : {}),
    ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
    // Per request: a model needs today's date to turn "tomorrow" into a due date.
    system: () => `${DEFAULT_CHAT_SYSTEM} ${ABOUT_THE_APP} Now is ${new Date().toISOString()}.`,
    docs: { paths: exampleDocPaths(), root: REPO_ROOT },
  });
}
