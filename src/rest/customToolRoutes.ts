/**
 * The REST surface of the custom tools (`app.tool(name, spec)`): `POST /tools/<name>` with
 * the tool's input as the JSON body, answering 200 with exactly the object the MCP tool
 * returns as `structuredContent` (`{data: <the handler's result>}`, checked against the
 * tool's output schema). TerrenoApp mounts it only when the app has custom tools.
 *
 * The same rules as on /mcp: a tool the caller does not see (src/tools/visibleTools.ts)
 * answers exactly as an unknown name (404 `unknown_tool`; 401 to an anonymous caller), and
 * is looked at before the body, so its arguments reveal nothing. Rate limits: a call spends
 * the caller's REST write points (as model actions do) unless the tool is annotated
 * `readOnlyHint: true`. Failures leave through the app's one error middleware.
 */
import express, { type Request, type Response, type Router } from "express";
import { TerrenoError, unauthenticated } from "../core/errors.js";
import { isWrite } from "../core/isWrite.js";
import { UNREADABLE_BODY } from "../core/validateBody.js";
import { clientIp, type RateLimits } from "../ops/rateLimit.js";
import { executeTool } from "../tools/executeTool.js";
import { MAX_TOOL_NAME_LENGTH } from "../tools/naming.js";
import type { ToolDefinition } from "../tools/toolDefinitions.js";
import { canSeeTool } from "../tools/visibleTools.js";
import { restContext } from "./requestContext.js";

/** Where TerrenoApp mounts the custom tools' routes. */
export const CUSTOM_TOOLS_PATH = "/tools";

/** The same answer `tools/call` gives for a name it does not know. */
function unknownTool(name: string): TerrenoError {
  return new TerrenoError(
    "unknown_tool",
    `Unknown tool: ${name.slice(0, MAX_TOOL_NAME_LENGTH)}. Call tools/list for the available tools.`,
  );
}

/** A body the JSON parser skipped (another content type) is a 415, as on the model routes. */
function bodyOf(req: Request): unknown {
  if (req.body === undefined && Number(req.headers["content-length"] ?? 0) > 0) {
    return UNREADABLE_BODY;
  }
  return req.body;
}

export function customToolRouter(
  tools: readonly ToolDefinition[],
  rateLimits: Pick<RateLimits, "consume"> | undefined,
): Router {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const router = express.Router();
  router.post("/:name", async (req: Request, res: Response) => {
    const { name } = req.params as { name: string };
    const ctx = restContext(req);
    const tool = byName.get(name);
    if (!tool || !(await canSeeTool(tool, ctx.user))) {
      throw ctx.user ? unknownTool(name) : unauthenticated();
    }
    if (isWrite(tool)) {
      await rateLimits?.consume({ action: "write", user: ctx.user, ip: clientIp(req) });
    }
    const body = bodyOf(req);
    if (body === UNREADABLE_BODY) {
      throw new TerrenoError(
        "unsupported_media_type",
        "Send the body as JSON (Content-Type: application/json).",
      );
    }
    res.json(await executeTool(tool, ctx, body));
  });
  return router;
}
