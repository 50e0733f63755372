/**
 * getMCPPrompts(): the app's prompts (`app.prompt`) for an in-process chat, as /mcp's
 * `prompts/list` shows them to `user`, each with a `get(args)` that builds its messages as
 * that user (AI SDK `ModelMessage`s, ready for generateText/streamText or to fill a composer).
 * The same definitions and the same runner as /mcp's `prompts/get`: the verdict, the one
 * argument validation, the tool-call rate limit and the trace.
 */
import type { ModelMessage } from "ai";
import type { Logger } from "../core/logger.js";
import type { PromptDefinition } from "../core/promptTypes.js";
import type { User } from "../core/types.js";
import { withLogger } from "../tools/aiSdk/toolSet.js";
import { runPromptCall, unknownPrompt } from "../tools/prompts.js";
import type { ToolHost } from "../tools/toolHost.js";
import { toolsVisibleTo } from "../tools/visibleTools.js";

export interface MCPPrompt {
  name: string;
  title: string;
  description: string;
  arguments: ReadonlyArray<{ name: string; description?: string; required: boolean }>;
  /**
   * The prompt's messages for these arguments, built as the user. Throws the TerrenoError the
   * call failed with: `validation_failed` for arguments the prompt refuses, `rate_limited`, or
   * what its messages threw (`not_found`...).
   */
  get(args?: Record<string, string>): Promise<{ description: string; messages: ModelMessage[] }>;
}

export interface GetMCPPromptsOptions {
  /** The app whose prompts are offered (a TerrenoApp). */
  app: ToolHost;
  /** Who the prompts are for: only those this user sees are returned, and run as them. */
  user?: User;
  /** Where server faults are reported. Default: the app's logger. */
  logger?: Logger;
}

/** The prompts `user` sees, in name order (permission checks may be async, hence a promise). */
export async function getMCPPrompts(options: GetMCPPromptsOptions): Promise<MCPPrompt[]> {
  const services = withLogger(options.app.services, options.logger);
  const visible = await toolsVisibleTo(services.prompts ?? [], options.user);
  const runner = { surface: "ai" as const, services };
  return visible.map((prompt: PromptDefinition) => ({
    name: prompt.name,
    title: prompt.title,
    description: prompt.description,
    arguments: prompt.arguments.map((arg) => ({
      name: arg.name,
      ...(arg.description ? { description: arg.description } : {}),
      required: arg.required,
    })),
    async get(args) {
      const outcome = await runPromptCall(runner, {
        prompt,
        name: prompt.name,
        ...(options.user ? { user: options.user } : {}),
        run: async (ctx) => prompt.messages(prompt.parse(args), ctx),
      });
      if (outcome.status === "unseen") throw unknownPrompt(prompt.name);
      if (outcome.status === "failed") throw outcome.error;
      return {
        description: prompt.description,
        messages: outcome.output.map(
          (message): ModelMessage => ({ role: message.role, content: message.content }),
        ),
      };
    },
  }));
}
