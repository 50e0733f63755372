/**
 * A custom tool's call (`app.tool(name, spec)`): the one verdict (src/core/verdict.ts:
 * anonymous refused unless the tool allows it, scope by `isWrite`, permissions), judged by the
 * tool-call runner → one zod validation → handler → result checked against the output schema (if any) and serialized.
 * Writes (anything not annotated read-only) are observed (`observeWrite`), with model `"tool"`.
 */
import type { CustomToolConfig } from "../actionTypes.js";
import { isWrite } from "../isWrite.js";
import { observeWrite, type WriteTarget } from "../observe.js";
import type { PermissionMethod, RequestContext } from "../types.js";
import type { AccessRule } from "../verdict.js";
import { parseInput, presentResult } from "./action.js";

/** The `model` a custom tool's audit events carry. */
export const CUSTOM_TOOL_MODEL = "tool";

/** A custom tool's writes are reported by the top-level keys of its input. */
export const CUSTOM_TOOL_TARGET: WriteTarget = {
  model: CUSTOM_TOOL_MODEL,
  fields: (input) =>
    typeof input === "object" && input !== null && !Array.isArray(input)
      ? Object.keys(input).slice(0, 200)
      : [],
};

const everyone: PermissionMethod = () => true;

/** The tool's permissions as permission methods: a predicate on the caller becomes one. */
function permissionsOf(config: CustomToolConfig): readonly PermissionMethod[] {
  const { permissions } = config;
  // Default: whoever the anonymous rule lets through (any user; anyone with allowAnonymous).
  if (permissions === undefined) return [everyone];
  if (typeof permissions === "function") return [(_method, user) => permissions(user)];
  return permissions;
}

const rules = new WeakMap<CustomToolConfig, AccessRule>();

/** The verdict's rule for a custom tool, built once per tool. */
export function customToolAccess(name: string, config: CustomToolConfig): AccessRule {
  let rule = rules.get(config);
  if (!rule) {
    rule = {
      method: name,
      write: isWrite(config),
      anonymous: config.allowAnonymous === true,
      permissions: permissionsOf(config),
    };
    rules.set(config, rule);
  }
  return rule;
}

/**
 * The custom tool itself. Every call comes through the tool-call runner, which judged it on
 * `customToolAccess` first (and reported a refused write itself), so this step never judges.
 */
export async function runCustomTool(
  name: string,
  config: CustomToolConfig,
  ctx: RequestContext,
  input: unknown,
): Promise<unknown> {
  const run = async () => {
    const body = parseInput(config.input, input, name, config.allowUnknownKeys);
    const result = await config.handler(ctx, body);
    return presentResult(result, {
      ctx,
      ...(config.output ? { output: config.output } : {}),
      what: name,
    });
  };
  if (!isWrite(config)) return run();
  return observeWrite(CUSTOM_TOOL_TARGET, ctx, name, { body: input }, run);
}
