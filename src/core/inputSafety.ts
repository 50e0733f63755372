/**
 * Structural checks on untrusted input that hold on every surface, before any schema
 * validation: server-side JavaScript operators and prototype-polluting keys are refused
 * at any depth, and written documents may not carry operator-like or dotted keys.
 */
import { FORBIDDEN_OPERATORS } from "../schema/operators.js";
import { validationFailed } from "./errors.js";

const FORBIDDEN = new Set<string>(FORBIDDEN_OPERATORS);
const PROTOTYPE_KEYS = new Set(["__proto__", "constructor", "prototype"]);
const MAX_DEPTH = 32;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Walks plain JSON; returns the dotted path and key of the first offending key. */
function findKey(
  value: unknown,
  reject: (key: string) => boolean,
  path: string,
  depth: number,
): { path: string; key: string } | undefined {
  if (depth > MAX_DEPTH) {
    return { path, key: "(depth)" };
  }
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = findKey(item, reject, path, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  if (!isRecord(value)) {
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const childPath = path ? `${path}.${key}` : key;
    if (reject(key)) {
      return { path: path || key, key };
    }
    const found = findKey(value[key], reject, childPath, depth + 1);
    if (found) return found;
  }
  return undefined;
}

function describeKey(key: string): string {
  return key === "(depth)"
    ? `is nested deeper than ${MAX_DEPTH} levels`
    : `may not contain the key "${key}"`;
}

/** For filters, sorts and every other input: no `$where`/`$expr`/`$function`, no prototype keys. */
export function assertNoForbiddenKeys(value: unknown, label: string): void {
  const found = findKey(value, (key) => FORBIDDEN.has(key) || PROTOTYPE_KEYS.has(key), "", 0);
  if (!found) return;
  if (FORBIDDEN.has(found.key)) {
    throw validationFailed(`The operator ${found.key} is not allowed.`, {
      [found.path]: `operator ${found.key} is not allowed`,
    });
  }
  throw validationFailed(`The ${label} ${describeKey(found.key)}.`, {
    [found.path]: describeKey(found.key),
  });
}

/** For document bodies: additionally no `$`-prefixed or dotted keys at any depth (Map and Mixed values included). */
export function assertSafeDocumentKeys(value: unknown): void {
  assertNoForbiddenKeys(value, "body");
  const found = findKey(
    value,
    (key) => key.startsWith("$") || key.includes(".") || key === "",
    "",
    0,
  );
  if (found) {
    throw validationFailed(`The body may not contain the key "${found.key}".`, {
      [found.path]: `keys may not start with "$", contain "." or be empty`,
    });
  }
}
