/**
 * Per-role field rules (`fields: {costCents: {read: [IsAdmin], write: [IsAdmin]}}`): which
 * callers may read, and which may write, one field. Judged per caller, never per document: the
 * rule's permission methods are called `("read" | "create" | "update", user, undefined, caller)`
 * with no document, as the method-level checks that decide which tools a caller sees are (the
 * call is passed so `WorkspaceRole` answers for the current workspace), because the answer
 * shapes the caller's view (schemas, filters, sorts, populate selections), not one record.
 *
 * A field a caller may not read is, to them, a field the model does not have: hidden from
 * results, schemas, filters, sorts and populate selections, and refused there exactly as an
 * unknown field is. A field a caller may not write is read-only to them. The views built once
 * per resource (tool catalogs, describe_models, OpenAPI, resources, documents of this model
 * populated into another's) apply every rule, as for a caller who passes none.
 */
import type { PermissionCaller, PermissionMethod } from "./types.js";

/** Who may read and who may write one field. Every check listed must pass; `[]`: nobody. */
export interface FieldRule<TDoc = unknown> {
  read?: PermissionMethod<TDoc> | readonly PermissionMethod<TDoc>[];
  write?: PermissionMethod<TDoc> | readonly PermissionMethod<TDoc>[];
}

/** The paths a caller may not read, may not set on create, may not change on update. */
export interface FieldDenials {
  read: readonly string[];
  create: readonly string[];
  update: readonly string[];
}

type Rules = Readonly<Record<string, FieldRule | undefined>>;

function checksOf(
  checks: PermissionMethod | readonly PermissionMethod[] | undefined,
): readonly PermissionMethod[] | undefined {
  if (checks === undefined) return undefined;
  return typeof checks === "function" ? [checks] : checks;
}

/** What a caller who passes no rule is denied: every rule's field. */
export function allDenied(rules: Rules | undefined): FieldDenials {
  const entries = Object.entries(rules ?? {});
  const read = entries.filter(([, rule]) => rule?.read !== undefined).map(([path]) => path);
  const write = entries.filter(([, rule]) => rule?.write !== undefined).map(([path]) => path);
  return { read, create: write, update: write };
}

async function passes(
  checks: readonly PermissionMethod[] | undefined,
  method: "read" | "create" | "update",
  caller: PermissionCaller,
): Promise<boolean> {
  if (checks === undefined) return true;
  if (checks.length === 0) return false;
  for (const check of checks) {
    if (!(await check(method, caller.user, undefined, caller))) return false;
  }
  return true;
}

/**
 * One letter per rule and question, in the rules' order, `1` for allowed: the key of the
 * caller's view (callers who get the same answers share one view).
 */
export async function fieldVerdicts(rules: Rules, caller: PermissionCaller): Promise<string> {
  let key = "";
  for (const rule of Object.values(rules)) {
    const read = checksOf(rule?.read);
    const write = checksOf(rule?.write);
    const mayRead = await passes(read, "read", caller);
    key += mayRead ? "1" : "0";
    key += mayRead && (await passes(write, "create", caller)) ? "1" : "0";
    key += mayRead && (await passes(write, "update", caller)) ? "1" : "0";
  }
  return key;
}

/** The denials a key from `fieldVerdicts` stands for. */
export function denialsOf(rules: Rules, key: string): FieldDenials {
  const read: string[] = [];
  const create: string[] = [];
  const update: string[] = [];
  Object.keys(rules).forEach((path, i) => {
    if (key[i * 3] !== "1") read.push(path);
    if (key[i * 3 + 1] !== "1") create.push(path);
    if (key[i * 3 + 2] !== "1") update.push(path);
  });
  return { read, create, update };
}
