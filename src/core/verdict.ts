/**
 * May this caller see / call this operation: THE verdict, one pure function for every
 * surface and every kind of operation (CRUD methods, actions, custom and discovery tools).
 * In order: a caller with no user is refused unless the operation serves anonymous callers
 * (401); the caller's token scope must allow a write when the operation writes (`isWrite`,
 * 403, src/core/scopes.ts); the method-level permissions, called `(method, user)` before any
 * document is loaded, must all pass (401 to an anonymous caller, 403 otherwise).
 *
 * `authorize` (CRUD), `action`, `customTool` and tool visibility (src/tools/visibleTools.ts)
 * all judge through it. Each call is judged once: a REST route by its operation, a tool call
 * by the runner (src/tools/runToolCall.ts), which then runs the operation's `run` step, which
 * does not judge again.
 */
import { forbidden, type TerrenoError, unauthenticated } from "./errors.js";
import { callerScopes, scopeRefusal, scopesAllow } from "./scopes.js";
import type { CrudMethod, PermissionCaller, PermissionMethod, RequestContext } from "./types.js";

/** What the verdict reads of an operation. Built once per operation and surface, not per call. */
export interface AccessRule {
  /** The name permission methods are called with: a CRUD method, or an action's or tool's name. */
  readonly method: string;
  /** Whether the operation writes (`isWrite`): a read-only token may not call it. */
  readonly write: boolean;
  /** Whether callers with no user reach the permissions at all (else 401). */
  readonly anonymous: boolean;
  /** Method-level checks, all of which must pass. Empty: nobody may call it. */
  readonly permissions: readonly PermissionMethod[];
  /**
   * The operation acts on a workspace-scoped model: a call settles its workspace first
   * (`settleWorkspace`), so a caller with none to act in hears why (404, 403, or 400 listing
   * their workspaces) before any permission is judged.
   */
  readonly workspace?: boolean;
}

export type Refusal = "unauthenticated" | "scope" | "forbidden";
export type Verdict = "allowed" | Refusal;

/** The caller as the verdict sees it: the user, and the scopes this call is limited to. */
export type VerdictCaller = PermissionCaller;

type MaybePromise<T> = T | Promise<T>;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

async function passesRest(
  checks: readonly PermissionMethod[],
  from: number,
  method: CrudMethod,
  caller: VerdictCaller,
): Promise<boolean> {
  for (let i = from; i < checks.length; i += 1) {
    if (!(await checks[i](method, caller.user, undefined, caller))) return false;
  }
  return true;
}

/**
 * Whether the caller passes every check, called `(method, user, undefined, caller)` with no document. Synchronous
 * while every check answers synchronously (tool lists are built without a promise per tool);
 * a check that returns a promise makes the answer a promise. Stops at the first no.
 */
function passesAll(
  checks: readonly PermissionMethod[],
  method: string,
  caller: VerdictCaller,
): MaybePromise<boolean> {
  if (checks.length === 0) return false;
  // Actions and custom tools call permission methods with their own name as the method.
  const as = method as CrudMethod;
  for (let i = 0; i < checks.length; i += 1) {
    const answer = checks[i](as, caller.user, undefined, caller);
    if (isThenable(answer)) {
      return Promise.resolve(answer).then(
        (ok) => Boolean(ok) && passesRest(checks, i + 1, as, caller),
      );
    }
    if (!answer) return false;
  }
  return true;
}

/** The verdict: pure apart from the permission methods it calls. */
export function verdict(rule: AccessRule, caller: VerdictCaller): MaybePromise<Verdict> {
  if (!caller.user && !rule.anonymous) return "unauthenticated";
  if (!scopesAllow(callerScopes(caller), rule.write ? "write" : "read")) return "scope";
  const passes = passesAll(rule.permissions, rule.method, caller);
  if (isThenable(passes)) return passes.then((ok) => (ok ? "allowed" : "forbidden"));
  return passes ? "allowed" : "forbidden";
}

/** The error a refusal answers with, from the one error table. */
export function refusalError(refusal: Refusal, caller: VerdictCaller): TerrenoError {
  switch (refusal) {
    case "unauthenticated":
      return unauthenticated();
    case "scope":
      return scopeRefusal(callerScopes(caller));
    case "forbidden":
      return caller.user ? forbidden() : unauthenticated();
  }
}

/**
 * For a call of a scoped operation: resolves its workspace (src/core/workspace.ts), throwing
 * the caller's error when there is none to act in. Memoized on the call, so the operation's own
 * lookup after it costs nothing. Tool lists do not settle: they judge with `hasRole` alone.
 */
export async function settleWorkspace(rule: AccessRule, ctx: RequestContext): Promise<void> {
  if (rule.workspace && ctx.workspace) await ctx.workspace.current();
}

/** Throws the refusal's error unless this call (`ctx`) is allowed. */
export async function assertAllowed(rule: AccessRule, ctx: RequestContext): Promise<void> {
  await settleWorkspace(rule, ctx);
  const answer = await verdict(rule, ctx);
  if (answer !== "allowed") throw refusalError(answer, ctx);
}

/** Rules kept per surface view (each caller keeps its own cache), built once per key. */
export type RuleCache = WeakMap<object, Map<string, AccessRule>>;

export function cachedRule(
  cache: RuleCache,
  view: object,
  key: string,
  build: () => AccessRule,
): AccessRule {
  let byKey = cache.get(view);
  if (!byKey) {
    byKey = new Map();
    cache.set(view, byKey);
  }
  let rule = byKey.get(key);
  if (!rule) {
    rule = build();
    byKey.set(key, rule);
  }
  return rule;
}
