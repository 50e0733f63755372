/**
 * A custom tool's call (`app.tool(name, spec)`): caller (anonymous refused unless the tool
 * allows it) → scope (read-only tools need read, others write) → permissions → one zod
 * validation → handler → result checked against the output schema (if any) and serialized.
 * Writes (anything not annotated read-only) are observed, with model `"tool"`.
 */
import type { CustomToolConfig } from "../actionTypes.js";
import { forbidden, unauthenticated } from "../errors.js";
import { normalizeError } from "../normalizeError.js";
import { callerScopes, scopeRefusal, scopesAllow } from "../scopes.js";
import type { CrudMethod, RequestContext, User, WriteOutcome } from "../types.js";
import { isReadOnlyAction, parseInput, shapeResult } from "./action.js";

/** The `model` a custom tool's audit events carry. */
export const CUSTOM_TOOL_MODEL = "tool";

/** Whether `user` passes the tool's own permissions (not the scope or anonymous rules). */
export function permitsCustomTool(
  name: string,
  config: CustomToolConfig,
  user: User | undefined,
): boolean | Promise<boolean> {
  if (!user && !config.allowAnonymous) return false;
  const { permissions } = config;
  if (permissions === undefined) return Boolean(user) || Boolean(config.allowAnonymous);
  if (typeof permissions === "function") return permissions(user);
  if (permissions.length === 0) return false;
  const checks = permissions.map((check) => check(name as CrudMethod, user));
  if (checks.every((verdict) => typeof verdict === "boolean")) return checks.every(Boolean);
  return Promise.all(checks).then((verdicts) => verdicts.every(Boolean));
}

export async function customTool(
  name: string,
  config: CustomToolConfig,
  ctx: RequestContext,
  input: unknown,
): Promise<unknown> {
  const run = async () => {
    if (!ctx.user && !config.allowAnonymous) throw unauthenticated();
    const scopes = callerScopes(ctx);
    if (!scopesAllow(scopes, isReadOnlyAction(config) ? "read" : "write")) {
      throw scopeRefusal(scopes);
    }
    if (!(await permitsCustomTool(name, config, ctx.user))) {
      throw ctx.user ? forbidden() : unauthenticated();
    }
    const body = parseInput(config.input, input, name);
    return shapeResult(await config.handler(ctx, body), config.output, undefined, name);
  };
  const { observer } = ctx;
  if (!observer || isReadOnlyAction(config)) return run();
  let outcome: WriteOutcome = "success";
  try {
    return await run();
  } catch (error) {
    outcome = normalizeError(error).code;
    throw error;
  } finally {
    const fields =
      typeof input === "object" && input !== null && !Array.isArray(input)
        ? Object.keys(input).slice(0, 200)
        : [];
    try {
      await observer.write({ action: name, model: CUSTOM_TOOL_MODEL, fields, outcome }, ctx);
    } catch {
      // Observers report their own failures.
    }
  }
}
