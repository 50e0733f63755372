/**
 * `POST /chat`: an assistant that acts for the signed-in caller through the app's own tools
 * (getMCPTools: the same tools, permissions and hidden fields as the MCP endpoint).
 *
 * Body: `{prompt}` or `{messages: [{role, content}]}`. The reply is the AI SDK's *text stream*
 * protocol, the one `result.pipeTextStreamToResponse()` writes (`text/plain; charset=utf-8`, the
 * assistant's text deltas as they arrive; `TextStreamChatTransport` reads it). We drive it from
 * `fullStream` ourselves so that a model failure before the first byte is a 502 JSON error
 * instead of an empty 200, and a failure mid-stream ends the text with a short notice.
 */
import type { LanguageModel } from "ai";
import { stepCountIs, streamText } from "ai";
import type { Request, Response } from "express";
import { getMCPTools } from "../../src/ai/index.js";
import { type TerrenoApp, TerrenoError, type TerrenoPlugin, type User } from "../../src/index.js";
import { LLM_FAILED, LLM_NOT_CONFIGURED } from "./errorBody.js";
import { LLM_HELP } from "./modelFromEnv.js";
import { parseChatBody } from "./parseChatBody.js";

export interface ChatPluginOptions {
  /** The app whose tools the assistant may call. */
  app: TerrenoApp;
  /** The language model; without one the route answers 503 with set-up instructions. */
  model?: LanguageModel;
  /** Tool-loop bound. Default 5 model calls. */
  maxSteps?: number;
  /** Default `/chat`. */
  path?: string;
  log?: (message: string, error: unknown) => void;
}

const SYSTEM_PROMPT = [
  "You are the assistant of a small todo and food-log app.",
  "Use the tools to read and change the signed-in user's data; never invent ids or records.",
  "Answer briefly in plain text.",
].join(" ");

export function chatPlugin(options: ChatPluginOptions): TerrenoPlugin {
  const log = options.log ?? ((message, error) => console.error(message, error));
  const maxSteps = options.maxSteps ?? 5;

  async function chat(req: Request, res: Response): Promise<void> {
    const user = (req as Request & { user?: User }).user;
    if (!user) {
      // Thrown errors reach the app's error middleware: the framework's 401 body and header.
      throw new TerrenoError(
        "unauthenticated",
        "Sign in first: send Authorization: Bearer <token>.",
      );
    }
    if (!options.model) {
      throw new TerrenoError(LLM_NOT_CONFIGURED, `The chat model is not configured. ${LLM_HELP}`);
    }
    const messages = parseChatBody(req.body);

    const abort = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) abort.abort();
    });
    const result = streamText({
      model: options.model,
      system: `${SYSTEM_PROMPT} Now is ${new Date().toISOString()}.`,
      messages,
      tools: getMCPTools({ app: options.app, user }),
      stopWhen: stepCountIs(maxSteps),
      abortSignal: abort.signal,
    });

    let started = false;
    const start = () => {
      if (started) return;
      started = true;
      res.status(200);
      res.setHeader("Content-Type", "text/plain; charset=utf-8");
      res.setHeader("Cache-Control", "no-cache");
      res.setHeader("X-Accel-Buffering", "no");
      res.flushHeaders();
    };
    let failure: unknown;
    try {
      for await (const part of result.fullStream) {
        if (part.type === "text-delta") {
          start();
          res.write(part.text);
        } else if (part.type === "error") {
          failure = part.error;
          break;
        }
      }
    } catch (error) {
      failure = error;
    }
    if (abort.signal.aborted) return; // the client went away
    if (failure !== undefined) {
      log("example chat: the language model request failed", failure);
      if (!started) {
        throw new TerrenoError(
          LLM_FAILED,
          "The language model request failed; see the server log.",
        );
      }
      res.write("\n\n[The assistant stopped: the language model request failed.]");
    }
    start();
    res.end();
  }

  return {
    name: "chat",
    register(app) {
      app.post(options.path ?? "/chat", chat);
    },
  };
}
