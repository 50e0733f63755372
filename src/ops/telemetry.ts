/**
 * OpenTelemetry for every surface, through `@opentelemetry/api` only: a no-op until the app
 * registers an SDK (NodeSDK, or a TracerProvider and MeterProvider of its own).
 *
 * - HTTP: one SERVER span per request, named `GET /todos/:id` (HTTP semantic conventions),
 *   and the `http.server.request.duration` histogram.
 * - Tools (MCP and AI SDK): one span per call, named `tools/call todos_list` (MCP semantic
 *   conventions), and the `mcp.server.operation.duration` histogram.
 * - Every failure on any surface: the `terreno.errors` counter, by surface, operation and code.
 * - Both spans name the workspace the call resolved (`terreno.workspace.id`), when it resolved
 *   one; the metrics do not (one series per workspace would be unbounded).
 */
import {
  type Attributes,
  type Counter,
  context,
  type Histogram,
  type MeterProvider,
  metrics,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import type { NextFunction, Request, Response } from "express";
import type { TerrenoError } from "../core/errors.js";
import { normalizeError } from "../core/normalizeError.js";
import type { RequestContext, ToolCallInfo, ToolCallTrace } from "../core/types.js";
import { errorCodeOf } from "../http/errorCode.js";
import { requestWorkspaceOf } from "../http/requestWorkspace.js";
import { routeTemplate } from "../http/routeTemplate.js";

/** The span attribute naming the workspace a request or tool call acted in. */
const WORKSPACE_ATTRIBUTE = "terreno.workspace.id";

/** The instrumentation scope of every span and instrument. */
export const TELEMETRY_SCOPE = "terreno-mcp";

export const HTTP_DURATION_METRIC = "http.server.request.duration";
export const TOOL_DURATION_METRIC = "mcp.server.operation.duration";
export const ERROR_COUNTER_METRIC = "terreno.errors";

interface Instruments {
  httpDuration: Histogram;
  toolDuration: Histogram;
  errors: Counter;
}

// The metrics API has no proxy provider: instruments made before an SDK registers stay no-ops,
// so they are made per registered provider, on first use.
const instrumentsByProvider = new WeakMap<MeterProvider, Instruments>();

function instruments(): Instruments {
  const provider = metrics.getMeterProvider();
  let found = instrumentsByProvider.get(provider);
  if (!found) {
    const meter = provider.getMeter(TELEMETRY_SCOPE);
    found = {
      httpDuration: meter.createHistogram(HTTP_DURATION_METRIC, {
        description: "Duration of HTTP server requests.",
        unit: "s",
        advice: {
          explicitBucketBoundaries: [
            0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
          ],
        },
      }),
      toolDuration: meter.createHistogram(TOOL_DURATION_METRIC, {
        description: "Duration of MCP tool calls (and of the same tools run by the AI SDK).",
        unit: "s",
        advice: {
          explicitBucketBoundaries: [
            0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
          ],
        },
      }),
      errors: meter.createCounter(ERROR_COUNTER_METRIC, {
        description: "Failed requests and tool calls, by surface, operation and error code.",
        unit: "{error}",
      }),
    };
    instrumentsByProvider.set(provider, found);
  }
  return found;
}

const tracer = () => trace.getTracer(TELEMETRY_SCOPE);

const seconds = (startedMs: number) => (performance.now() - startedMs) / 1000;

const KNOWN_METHODS = new Set([
  "CONNECT",
  "DELETE",
  "GET",
  "HEAD",
  "OPTIONS",
  "PATCH",
  "POST",
  "PUT",
  "QUERY",
  "TRACE",
]);

function countError(surface: string, operation: string, code: string): void {
  instruments().errors.add(1, {
    "terreno.surface": surface,
    "terreno.operation": operation,
    "terreno.error.code": code,
    "error.type": code,
  });
}

/**
 * Express middleware: a SERVER span per request, child of any incoming `traceparent` (when
 * the app registered a propagator), active while the request is handled. Its name and
 * `http.route` are the matched route template; an error answer sets `error.type` to its
 * error code; 5xx answers set the span status to ERROR.
 */
export function httpTelemetry() {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = performance.now();
    const method = KNOWN_METHODS.has(req.method) ? req.method : "_OTHER";
    const parent = propagation.extract(context.active(), req.headers);
    const attributes: Attributes = {
      "http.request.method": method,
      "url.path": req.path,
      "url.scheme": req.protocol,
    };
    if (method === "_OTHER") attributes["http.request.method_original"] = req.method;
    const span = tracer().startSpan(method, { kind: SpanKind.SERVER, attributes }, parent);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const route = routeTemplate(req);
      const status = res.statusCode;
      const finished = res.writableFinished;
      const errorType = !finished
        ? "aborted"
        : status >= 400
          ? (errorCodeOf(res) ?? String(status))
          : undefined;
      const name = route ? `${method} ${route}` : method;
      span.updateName(name);
      const common: Attributes = {
        "http.request.method": method,
        "url.scheme": req.protocol,
        ...(route ? { "http.route": route } : {}),
        ...(finished ? { "http.response.status_code": status } : {}),
        ...(errorType ? { "error.type": errorType } : {}),
      };
      span.setAttributes(common);
      if (errorType) span.setAttribute("terreno.error.code", errorType);
      const workspaceId = requestWorkspaceOf(req);
      if (workspaceId) span.setAttribute(WORKSPACE_ATTRIBUTE, workspaceId);
      if (status >= 500 || !finished)
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
      span.end();
      instruments().httpDuration.record(seconds(started), common);
      if (errorType) countError("rest", name, errorType);
    };
    res.once("finish", end);
    res.once("close", end);
    context.with(trace.setSpan(parent, span), next);
  };
}

export type { ToolCallInfo, ToolCallTrace } from "../core/types.js";

/**
 * Runs one tool call inside its span, `tools/call <tool>` (or a prompt's `prompts/get <name>`,
 * `completion/complete <name>`; MCP semantic conventions: SERVER
 * for MCP, INTERNAL for AI SDK tools run in process), and records its duration and failure.
 * A failure reported through `trace.fail` or thrown sets `error.type` and
 * `terreno.error.code` to the error code and the span status to ERROR.
 */
export async function traceToolCall<T>(
  info: ToolCallInfo,
  run: (trace: ToolCallTrace) => Promise<T>,
): Promise<T> {
  const started = performance.now();
  let failure: TerrenoError | undefined;
  let call: Pick<RequestContext, "workspace"> | undefined;
  const handle: ToolCallTrace = {
    fail(error) {
      failure = error;
    },
    context(ctx) {
      call = ctx;
    },
  };
  const method = info.method ?? "tools/call";
  // A prompt's get or completion is named as a prompt (MCP semantic conventions), not a tool.
  const attributes: Attributes =
    method === "tools/call"
      ? {
          "mcp.method.name": method,
          "gen_ai.tool.name": info.tool,
          "gen_ai.operation.name": "execute_tool",
          "terreno.surface": info.surface,
        }
      : {
          "mcp.method.name": method,
          "gen_ai.prompt.name": info.tool,
          "terreno.surface": info.surface,
        };
  const options = {
    kind: info.surface === "mcp" ? SpanKind.SERVER : SpanKind.INTERNAL,
    attributes: info.callId ? { ...attributes, "gen_ai.tool.call.id": info.callId } : attributes,
  };
  return tracer().startActiveSpan(`${method} ${info.tool}`, options, async (span: Span) => {
    try {
      return await run(handle);
    } catch (error) {
      failure ??= normalizeError(error);
      throw error;
    } finally {
      // Only a workspace the call resolved (never looked up here): none for an unscoped tool.
      const workspaceId = call?.workspace?.settled()?.id;
      if (workspaceId) span.setAttribute(WORKSPACE_ATTRIBUTE, workspaceId);
      if (failure) {
        span.setAttributes({ "error.type": failure.code, "terreno.error.code": failure.code });
        // A failure the call could not report as a result left as a JSON-RPC error.
        if (info.surface === "mcp" && !failure.spec.toolResult) {
          span.setAttribute("rpc.response.status_code", String(failure.spec.jsonRpc));
        }
        span.setStatus({ code: SpanStatusCode.ERROR, message: failure.code });
        countError(info.surface, info.tool, failure.code);
      }
      span.end();
      instruments().toolDuration.record(
        seconds(started),
        failure ? { ...attributes, "error.type": failure.code } : attributes,
      );
    }
  });
}
