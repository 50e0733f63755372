/**
 * `POST /mcp` as an ordinary plugin: small middlewares, one job each, in order: the Origin
 * check (checkOrigin.ts), body parsing with the HTTP edge's rules (parseBody.ts), the caller
 * (resolveMcpCaller.ts), the envelope (checkEnvelope.ts), then the dual-era SDK handler over
 * the one tool-call runner (mcpServerFactory.ts). GET and DELETE answer 405: the endpoint is
 * stateless. Protected Resource Metadata is served beside it (resourceMetadata.ts).
 */
import { toNodeHandler } from "@modelcontextprotocol/node";
import express, { type Express, type Request, type Response } from "express";
import { TerrenoError } from "../core/errors.js";
import { MCP_SCOPES } from "../core/scopes.js";
import { DEFAULT_MCP_PATH } from "../http/mcpPath.js";
import type { AppContext, TerrenoPlugin } from "../plugin/types.js";
import { createAppViews } from "../tools/appViews/appViews.js";
import type { ToolRunnerOptions } from "../tools/runToolCall.js";
import type { ToolDefinition } from "../tools/toolDefinitions.js";
import { kindOf } from "../tools/toolKinds.js";
import { mongoAnswerRelay } from "./answerRelay.js";
import { appResourceProvider } from "./appResources.js";
import type { McpCaller } from "./caller.js";
import { checkEnvelope } from "./checkEnvelope.js";
import { checkOrigin } from "./checkOrigin.js";
import { confirmationStates, keyFromDatabase, keyFromSecret } from "./confirmationStates.js";
import { createDualEraHandler } from "./httpHandler.js";
import { sendJsonRpcError } from "./jsonRpcError.js";
import { createServerFactory } from "./mcpServerFactory.js";
import type { McpEndpointOptions } from "./options.js";
import { parseMcpBody } from "./parseBody.js";
import { mcpPrompts } from "./prompts.js";
import { recordResourceProvider, recordTemplates } from "./recordResources.js";
import { mcpRequestState } from "./requestState.js";
import { resolveMcpCaller } from "./resolveMcpCaller.js";
import { createResourceLinker } from "./resourceLinks.js";
import {
  checkResourceUrl,
  PROTECTED_RESOURCE_WELL_KNOWN,
  resourceMetadataHandler,
  resourceMetadataUrl,
  withAuthorizationServers,
} from "./resourceMetadata.js";
import { resourceMetadataOpenApi } from "./resourceMetadataOpenApi.js";

/** Whether the app has anything to serve on /mcp: a model that opts in, a custom tool, a prompt. */
function servesTools(ctx: AppContext): boolean {
  return (
    ctx.resources.some((resource) => resource.options.mcp) ||
    ctx.services.tools.some((tool) => kindOf(tool).servesEndpoint) ||
    (ctx.services.prompts?.length ?? 0) > 0
  );
}

/**
 * Whether some tool serves callers with no user (else /mcp answers them 401): a model whose
 * tools view admits them (even with no method enabled), or any tool whose rule does.
 */
function anonymousAllowed(ctx: AppContext, tools: readonly ToolDefinition[]): boolean {
  return (
    ctx.resources.some((resource) => resource.options.mcp && resource.views.tools.anonymous) ||
    tools.some((tool) => tool.access.anonymous) ||
    (ctx.services.prompts ?? []).some((prompt) => prompt.access.anonymous)
  );
}

/** Records as resources, with links from tool results (unless `mcp.resources` is false). */
function recordResources(ctx: AppContext, options: McpEndpointOptions, runner: ToolRunnerOptions) {
  if (options.resources === false) return {};
  const settings = options.resources === true ? {} : (options.resources ?? {});
  const scheme = settings.scheme ?? "terreno";
  const templates = recordTemplates(ctx.services.tools, scheme);
  if (templates.length === 0) return {};
  const provider = recordResourceProvider(templates, runner, {
    scheme,
    listLimit: settings.listLimit ?? 20,
  });
  return { resources: [provider], decorateResult: createResourceLinker(templates) };
}

/** The SDK's handler over the app's tools (definitions and validators were built once). */
function sdkHandler(ctx: AppContext, options: McpEndpointOptions) {
  const { logger, services } = ctx;
  const { tools } = services;
  const limits = services.rateLimits;
  // Every call spends the caller's tool-call points, reports to the app's observer and logger.
  const runner: ToolRunnerOptions = { surface: "mcp", services };
  const records = recordResources(ctx, options, runner);
  const apps = options.apps ? createAppViews(tools) : undefined;
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const confirmed = new Set(tools.filter((tool) => tool.confirm).map((tool) => tool.name));
  // Every instance of the app signs with the same key, so any of them honours a retry.
  const secret = ctx.options.auth?.jwt?.secret;
  const states =
    confirmed.size > 0
      ? confirmationStates(
          secret ? keyFromSecret(secret) : keyFromDatabase(ctx.connection),
          ctx.connection,
        )
      : undefined;
  const prompts = services.prompts?.length
    ? mcpPrompts(services.prompts, tools, runner)
    : undefined;
  const factory = createServerFactory({
    tools,
    ...(prompts ? { prompts } : {}),
    info: { name: options.name ?? "terreno-mcp", version: options.version ?? "0.1.0" },
    logger,
    runner,
    // The views (a few, fixed) list before the records (paged per model).
    resources: [...(apps ? [appResourceProvider(apps, byName)] : []), ...(records.resources ?? [])],
    ...(records.decorateResult ? { decorateResult: records.decorateResult } : {}),
    ...(apps ? { apps } : {}),
    ...(states ? { states } : {}),
  });
  // The SDK reports here what it has already answered itself: mostly a client's malformed or
  // unsupported message (a 4xx), so a warning, not a server fault.
  const sdkRejected = (error: unknown) =>
    logger.warn({ err: error, surface: "mcp" }, "terreno-mcp: the MCP SDK rejected a request");
  const handler = createDualEraHandler(factory, {
    onerror: sdkRejected,
    logger,
    // An elicitation answer POST costs what a tool call does, answered or refused.
    ...(limits
      ? {
          chargeAnswer: (caller: McpCaller) =>
            limits.consume({
              action: "toolCall",
              ...(caller.user ? { user: caller.user } : {}),
              ...(caller.ip ? { ip: caller.ip } : {}),
            }),
        }
      : {}),
    ...(confirmed.size > 0
      ? {
          asksFirst: (name: string) => confirmed.has(name),
          answerRelay: mongoAnswerRelay(ctx.connection),
        }
      : {}),
  });
  return (req: Request, res: Response) => {
    // The caller resolveMcpCaller bound to this request goes on with it through the SDK.
    const state = mcpRequestState(req);
    const node = toNodeHandler(
      { fetch: (request, init) => handler.fetch(request, init, state) },
      { onerror: sdkRejected },
    );
    void node(req, res, req.body);
  };
}

/**
 * Protected Resource Metadata (RFC 9728): the path form, the root form, and the resource URL's.
 * Returns the paths it mounted, for the OpenAPI document.
 */
function mountMetadata(
  app: Express,
  path: string,
  options: McpEndpointOptions,
  resourceUrl?: string,
): string[] {
  const metadata = resourceMetadataHandler(path, { resourceUrl, oauth: options.oauth });
  const metadataPaths = new Set([
    `${PROTECTED_RESOURCE_WELL_KNOWN}${path}`,
    PROTECTED_RESOURCE_WELL_KNOWN,
  ]);
  if (resourceUrl) metadataPaths.add(new URL(resourceMetadataUrl(resourceUrl)).pathname);
  for (const metadataPath of metadataPaths) {
    app.get(metadataPath, metadata);
    app.options(metadataPath, metadata);
  }
  return [...metadataPaths];
}

function mountEndpoint(app: Express, ctx: AppContext, options: McpEndpointOptions): string[] {
  const path = options.path ?? DEFAULT_MCP_PATH;
  const resourceUrl = options.resourceUrl ? checkResourceUrl(options.resourceUrl) : undefined;
  const router = express.Router();
  router.post(
    "/",
    checkOrigin(options.allowedOrigins),
    ...parseMcpBody(ctx.options.jsonLimit ?? "100kb", ctx.logger),
    resolveMcpCaller({
      resolveCaller: ctx.resolveCaller,
      anonymousAllowed: anonymousAllowed(ctx, ctx.services.tools),
      path,
      ...(resourceUrl ? { resourceUrl } : {}),
      scopesSupported: options.oauth?.scopesSupported ?? MCP_SCOPES,
      logger: ctx.logger,
      ...(ctx.services.workspaces ? { workspaces: ctx.services.workspaces } : {}),
    }),
    checkEnvelope,
    sdkHandler(ctx, options),
  );
  router.all("/", (_req: Request, res: Response) => {
    res.setHeader("Allow", "POST");
    sendJsonRpcError(
      res,
      new TerrenoError("method_not_allowed", "This endpoint is stateless; use POST."),
    );
  });
  app.use(path, router);
  return mountMetadata(app, path, options, resourceUrl);
}

/**
 * The MCP endpoint plugin (TerrenoApp registers it unless `mcp.enabled` is false). It mounts
 * nothing when no model opts in and there is no custom tool. A plugin's own authorization
 * server (terreno-mcp/oauth) is advertised by the endpoint's metadata, which `/openapi.json`
 * lists too.
 */
export function mcpPlugin(configured: McpEndpointOptions = {}): TerrenoPlugin {
  // What the last build mounted: the document is built on its first request, after every mount.
  let metadataPaths: string[] = [];
  return {
    name: "mcp",
    // Mounted ahead of the app's REST middleware so MCP owns its parsing, auth and error shapes.
    beforeBodyParser(app, ctx) {
      metadataPaths = [];
      const options = withAuthorizationServers(configured, ctx.authorizationServers) ?? {};
      if (options.enabled === false || !servesTools(ctx)) return;
      metadataPaths = mountEndpoint(app, ctx, options);
    },
    openApi: () => resourceMetadataOpenApi(metadataPaths),
  };
}
