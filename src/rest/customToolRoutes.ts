/**
 * The REST surface of the custom tools (`app.tool(name, spec)`): `POST /tools/<name>` with
 * the tool's input as the JSON body, answering 200 with exactly the object the MCP tool
 * returns as `structuredContent` (`{data: <the handler's result>}`, checked against the
 * tool's output schema). TerrenoApp mounts it only when the app has custom tools.
 *
 * The call goes through the one tool-call runner (src/tools/runToolCall.ts), so the rules are
 * /mcp's: a tool the caller does not see answers exactly as an unknown name (404
 * `unknown_tool`; 401 to an anonymous caller), judged before the body, so its arguments
 * reveal nothing. Rate limits: a call spends the caller's REST write points (as model actions
 * do) unless the tool does not write (`isWrite`). Failures leave through the app's one error
 * middleware.
 */
import express, { type Request, type Response, type Router } from "express";
import { unauthenticated } from "../core/errors.js";
import { UNREADABLE_BODY } from "../core/validateBody.js";
import { clientIp } from "../ops/rateLimit.js";
import { runToolCall, type ToolRunnerOptions } from "../tools/runToolCall.js";
import type { Services } from "../tools/services.js";
import type { ToolDefinition } from "../tools/toolDefinitions.js";
import { unknownTool } from "../tools/toolErrors.js";
import { idempotent } from "./idempotent.js";
import { restContext } from "./requestContext.js";

/** Where TerrenoApp mounts the custom tools' routes. */
export const CUSTOM_TOOLS_PATH = "/tools";

/** A body the JSON parser skipped (another content type) is a 415, as on the model routes. */
function bodyOf(req: Request): unknown {
  if (req.body === undefined && Number(req.headers["content-length"] ?? 0) > 0) {
    return UNREADABLE_BODY;
  }
  return req.body;
}

/** `tools`: the custom tools this router serves; `services`: the app's. */
export function customToolRouter(tools: readonly ToolDefinition[], services: Services): Router {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const options: ToolRunnerOptions = { surface: "rest", services };
  const router = express.Router();
  // An `Idempotency-Key` replays a retried call's first answer (idempotent.ts).
  router.post("/:name", idempotent(services), async (req: Request, res: Response) => {
    const { name } = req.params as { name: string };
    const { user, headers, operation } = restContext(req, services);
    const outcome = await runToolCall(options, {
      tool: byName.get(name),
      name,
      args: bodyOf(req),
      user,
      headers,
      raw: req,
      ...(operation ? { operation } : {}),
      ip: clientIp(req),
    });
    if (outcome.status === "unseen") throw user ? unknownTool(name) : unauthenticated();
    if (outcome.status === "failed") throw outcome.error;
    res.json(outcome.output);
  });
  return router;
}
