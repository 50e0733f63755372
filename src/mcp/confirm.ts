/**
 * Confirmations the client asks the person for (`mcp.confirm`, an action's `confirm`): before
 * such a tool runs, a client that declared form elicitation is asked `{confirm: boolean}`. On
 * the 2026-07-28 era the call answers `input_required` with a signed `requestState`, and runs
 * when the retry carries an accepted `true` with that state, for the same tool, arguments and
 * caller (confirmationStates.ts); any other retry is asked again. On the 2025 era the server sends `elicitation/create` on the call's stream
 * and waits (legacyAsks.ts). A decline, a cancel, `false` or no answer in time answers an
 * `isError` result and writes nothing. A client without elicitation, or a call the runner would refuse anyway (a tool the
 * caller does not see, bad arguments), runs as before, so nothing is asked that could not
 * happen, and no unseen tool is revealed by a question.
 */
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { ToolDefinition } from "../tools/toolDefinitions.js";
import { canSeeTool } from "../tools/visibleTools.js";
import type { McpCaller } from "./caller.js";

const KEY = "confirm";

const CONFIRM_SCHEMA = {
  type: "object" as const,
  properties: {
    confirm: { type: "boolean" as const, title: "Confirm", description: "Yes, go ahead." },
  },
  required: ["confirm"],
};

/** Whether a client's declared capabilities include form-mode elicitation. */
export function elicitsForms(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (!elicitation) return false;
  // `elicitation: {}` is form mode (2025-06-18); later revisions name the modes.
  return elicitation.form !== undefined || elicitation.url === undefined;
}

/** The question the person answers. */
function confirmMessage(tool: ToolDefinition, args: unknown): string {
  const id = (args as { id?: unknown } | null)?.id;
  return typeof id === "string" ? `${tool.confirm} (id ${id})` : (tool.confirm ?? tool.title);
}

/**
 * The tool, when this call asks first: a confirmed tool the caller sees, with arguments its
 * validator accepts (create and update bodies are checked by the core, after the answer).
 */
export async function needsConfirmation(
  tool: ToolDefinition | undefined,
  caller: McpCaller,
  args: unknown,
): Promise<ToolDefinition | undefined> {
  if (!tool?.confirm || caller.failure) return undefined;
  if (!(await canSeeTool(tool, caller.user, caller.workspace))) return undefined;
  const input = args ?? {};
  if (typeof input === "object" && tool.validate && !tool.validate(input as never).ok) {
    return undefined;
  }
  return tool;
}

/** What the person did: `accept` with `true` is a yes; anything else a no. */
export type Answer = { yes: true } | { yes: false; action: string };

function answerFrom(action: string, content: Record<string, unknown> | undefined): Answer {
  if (action === "accept") {
    return content?.confirm === true ? { yes: true } : { yes: false, action: "answered no" };
  }
  return { yes: false, action: action === "decline" ? "declined" : "cancelled" };
}

/** The answer a 2026-07-28 retry carries, or undefined when the person was not asked yet. */
export function answerOf(responses: Record<string, unknown> | undefined): Answer | undefined {
  const response = inputResponse(responses, KEY);
  return response.kind === "elicit" ? answerFrom(response.action, response.content) : undefined;
}

/** The result of a call the person did not confirm: nothing ran. */
export function notConfirmed(tool: ToolDefinition, action: string): CallToolResult {
  const detail = `The person did not confirm ${tool.name} (${action}); nothing was done.`;
  return {
    isError: true,
    content: [
      {
        type: "text",
        text: `not_confirmed: ${detail}\n${JSON.stringify({ error: { code: "not_confirmed", detail } })}`,
      },
    ],
  };
}

/**
 * The 2026-07-28 question: an `input_required` result the client fulfils and retries, with the
 * signed state that binds the answer to this call (confirmationStates.ts).
 */
export function askModern(
  tool: ToolDefinition,
  args: unknown,
  requestState: string,
): InputRequiredResult {
  return inputRequired({
    inputRequests: {
      [KEY]: inputRequired.elicit({
        message: confirmMessage(tool, args),
        requestedSchema: CONFIRM_SCHEMA,
      }),
    },
    requestState,
  });
}

/**
 * How long a question waits for the person (the SDK's own wait for 2025-era questions); a
 * 2026-07-28 question's state expires after as long.
 */
export const QUESTION_TIMEOUT_MS = 10 * 60_000;

/**
 * The 2025-era question: `elicitation/create` related to the call (so it travels on the call's
 * SSE stream), and the person's answer. A failed or unanswered question is a no.
 */
export async function askLegacy(
  server: Server,
  tool: ToolDefinition,
  args: unknown,
  ctx: ServerContext,
): Promise<Answer> {
  try {
    const result = await server.request(
      {
        method: "elicitation/create",
        params: {
          mode: "form",
          message: confirmMessage(tool, args),
          requestedSchema: CONFIRM_SCHEMA,
        },
      },
      {
        relatedRequestId: ctx.mcpReq.id,
        timeout: QUESTION_TIMEOUT_MS,
        signal: ctx.mcpReq.signal,
      },
    );
    return answerFrom(result.action, result.content as Record<string, unknown> | undefined);
  } catch {
    return { yes: false, action: "not answered" };
  }
}

/** The capabilities a 2026-07-28 request declares on its envelope. */
export function modernCapabilities(ctx: ServerContext): ClientCapabilities | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
}
