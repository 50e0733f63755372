/**
 * Which tools a caller sees and may call, for /mcp (`tools/list` and `tools/call`),
 * getMCPTools() and `POST /tools/<name>`: the tool's rule (`tool.access`) under the core's
 * one verdict (src/core/verdict.ts): a user, or a tool that serves anonymous callers; a
 * token scope that allows the tool (a read-only token sees only tools that do not write,
 * `isWrite`); the method-level permissions, called `(method, user)` with no document.
 *
 * To a caller, a tool it does not see does not exist: `tools/list` leaves it out and
 * `tools/call` answers it exactly as an unknown tool. Object-level checks (IsOwner on a given
 * document) stay where they are, in the core, on every call.
 *
 * Permission checks may be async. Every function here answers synchronously while the checks
 * do, and with a promise as soon as one check returns one.
 */
import type { User } from "../core/types.js";
import { verdict } from "../core/verdict.js";
import type { WorkspaceAccess } from "../core/workspaceTypes.js";
import type { ToolDefinition } from "./toolDefinitions.js";

/** What the rule reads of a tool definition. */
export type VisibilityInput = Pick<ToolDefinition, "access">;

type MaybePromise<T> = T | Promise<T>;

function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

/**
 * Whether `user` (undefined: an anonymous caller) sees `tool`. The whole rule. `workspace` is
 * the caller's (`WorkspaceRole` reads it); a list is judged without settling it.
 */
export function canSeeTool(
  tool: VisibilityInput,
  user: User | undefined,
  workspace?: WorkspaceAccess,
): MaybePromise<boolean> {
  const answer = verdict(tool.access, workspace ? { user, workspace } : { user });
  return isPromise(answer) ? answer.then((v) => v === "allowed") : answer === "allowed";
}

/** One verdict per tool, in order: an array, or a promise of one when a check was async. */
function toolVisibility(
  tools: readonly VisibilityInput[],
  user: User | undefined,
  workspace: WorkspaceAccess | undefined,
): MaybePromise<boolean[]> {
  const verdicts: Array<MaybePromise<boolean>> = new Array(tools.length);
  let pending = false;
  for (let i = 0; i < tools.length; i += 1) {
    const verdict = canSeeTool(tools[i], user, workspace);
    if (isPromise(verdict)) pending = true;
    verdicts[i] = verdict;
  }
  return pending ? Promise.all(verdicts) : (verdicts as boolean[]);
}

function pick<T>(tools: readonly T[], verdicts: readonly boolean[]): readonly T[] {
  return verdicts.every(Boolean) ? tools : tools.filter((_, i) => verdicts[i]);
}

/** The tools `user` sees, in order (the same array when it sees them all). */
export function toolsVisibleTo<T extends VisibilityInput>(
  tools: readonly T[],
  user: User | undefined,
  workspace?: WorkspaceAccess,
): MaybePromise<readonly T[]> {
  const verdicts = toolVisibility(tools, user, workspace);
  return isPromise(verdicts) ? verdicts.then((v) => pick(tools, v)) : pick(tools, verdicts);
}

export interface ToolCatalogOptions {
  /**
   * How many distinct visible sets to keep (first in, first out). Callers usually fall into a
   * handful of roles; permissions that depend on each user's own data make more. Default 64.
   */
  maxEntries?: number;
}

/**
 * A per-caller catalog built once per distinct set of visible tools: `project` runs the first
 * time a set is seen (e.g. to build the `tools/list` result), and every caller who sees the
 * same set gets the same object back. For definitions built once and lists answered per request.
 */
export function createToolCatalog<T extends VisibilityInput, R>(
  tools: readonly T[],
  project: (visible: readonly T[]) => R,
  options: ToolCatalogOptions = {},
): (user: User | undefined, workspace?: WorkspaceAccess) => MaybePromise<R> {
  const maxEntries = Math.max(1, options.maxEntries ?? 64);
  const cache = new Map<string, R>();
  const entryFor = (verdicts: readonly boolean[]): R => {
    // The key names the visible set: one character per tool, in the definitions' order.
    const key = verdicts.every(Boolean) ? "all" : verdicts.map((v) => (v ? "1" : "0")).join("");
    let entry = cache.get(key);
    if (entry === undefined) {
      entry = project(pick(tools, verdicts));
      if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
      cache.set(key, entry);
    }
    return entry;
  };
  return (user, workspace) => {
    const verdicts = toolVisibility(tools, user, workspace);
    return isPromise(verdicts) ? verdicts.then(entryFor) : entryFor(verdicts);
  };
}
