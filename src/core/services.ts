/** The services outside any app, and the tracer every app's services hold (`AppServices`, types.ts). */
import { type Tracer, trace } from "@opentelemetry/api";
import { consoleLogger } from "./logger.js";
import type { AppServices, RequestContext } from "./types.js";

/** The OpenTelemetry instrumentation scope of every span the framework starts. */
export const TELEMETRY_SCOPE = "terreno-mcp";

/**
 * A Tracer that asks the global provider at each span, so a provider registered (or replaced,
 * as tests do) after the app was built is the one used.
 */
export function globalTracer(): Tracer {
  const current = () => trace.getTracer(TELEMETRY_SCOPE);
  return {
    startSpan: (...args: Parameters<Tracer["startSpan"]>) => current().startSpan(...args),
    startActiveSpan: ((...args: Parameters<Tracer["startActiveSpan"]>) =>
      // biome-ignore lint/suspicious/noExplicitAny: forwards startActiveSpan's overloads as they are.
      (current().startActiveSpan as (...a: any[]) => unknown)(
        ...args,
      )) as Tracer["startActiveSpan"],
  };
}

/**
 * The services of a router or tool outside any app: console logging, no observer, no rate
 * limits, no other routers' hidden fields.
 */
export const STANDALONE_SERVICES: AppServices<never, never> = {
  logger: consoleLogger,
  resources: [],
  tools: [],
  tracer: globalTracer(),
};

/**
 * What a surface knows of one call. Values every call gets the same way (the services, a
 * per-call value set by `callContext`) are not among them, so adding one changes no surface.
 */
export type CallFacts = Pick<
  RequestContext,
  "user" | "transport" | "headers" | "raw" | "operation" | "scopes"
>;

/**
 * THE place a RequestContext is made, for every surface (REST routes, the tool-call runner for
 * MCP, AI tools and `POST /tools/<name>`, MCP completions, the chat's own reads): the call's
 * facts beside the app's services. A per-call value every surface should carry (a request id,
 * a workspace) is set here once (docs/development.md, "Adding a service").
 */
export function callContext(services: AppServices, facts: CallFacts): RequestContext {
  return { ...facts, services };
}
