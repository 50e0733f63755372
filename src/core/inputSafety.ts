/**
 * Structural checks on untrusted input that hold on every surface, before any schema
 * validation: server-side JavaScript operators and prototype-polluting keys are refused
 * at any depth, no string (key or value) may hold a NUL or a lone surrogate, and written
 * documents may not carry operator-like or dotted keys.
 */
import { FORBIDDEN_OPERATORS } from "../schema/operators.js";
import { validationFailed } from "./errors.js";

const FORBIDDEN = new Set<string>(FORBIDDEN_OPERATORS);
const PROTOTYPE_KEYS = new Set(["__proto__", "constructor", "prototype"]);
/**
 * How deep any input may nest: no value more than 32 levels below its root (the root object's
 * own fields are level 1). Request bodies are checked against it right after JSON parsing, by
 * `findTooDeep`, which never recurses; `findKey` below stops there too.
 */
export const MAX_DEPTH = 32;
/** Error paths are cut to this length (a too-deep path has at least 33 segments). */
const MAX_PATH_LENGTH = 120;

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
    // Items are named by index (`$or.1`), so an error points at the offending element.
    for (const [index, item] of value.entries()) {
      const found = findKey(item, reject, path ? `${path}.${index}` : String(index), depth + 1);
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
      // The offending key's own path (`filter.title.$where`), as every other refusal names it.
      return { path: childPath, key };
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

/**
 * The dotted path of the first value nested more than `maxDepth` levels below `value`'s root,
 * or undefined. Iterative, with its own stack, so a body of any depth (e.g. 50,000 `[`) is
 * safe to scan; run it before anything that walks the value recursively (JSON.stringify,
 * schema validators, `findKey`).
 */
export function findTooDeep(value: unknown, maxDepth = MAX_DEPTH): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  interface Frame {
    container: object;
    /** Own keys of an object; undefined for an array. */
    keys: string[] | undefined;
    next: number;
    name: string;
  }
  const frameOf = (container: object, name: string): Frame => ({
    container,
    keys: Array.isArray(container) ? undefined : Object.keys(container),
    next: 0,
    name,
  });
  const frames: Frame[] = [frameOf(value, "")];
  while (frames.length > 0) {
    const top = frames[frames.length - 1];
    const size = top.keys ? top.keys.length : (top.container as unknown[]).length;
    if (top.next >= size) {
      frames.pop();
      continue;
    }
    const index = top.next;
    top.next += 1;
    const key = top.keys ? top.keys[index] : String(index);
    // A child of the container at depth `frames.length - 1` sits at depth `frames.length`.
    if (frames.length > maxDepth) {
      const path = [...frames.slice(1).map((frame) => frame.name), key].join(".");
      return path.length > MAX_PATH_LENGTH ? `${path.slice(0, MAX_PATH_LENGTH)}…` : path;
    }
    const child = top.keys
      ? (top.container as Record<string, unknown>)[key]
      : (top.container as unknown[])[index];
    if (typeof child === "object" && child !== null) frames.push(frameOf(child, key));
  }
  return undefined;
}

/** The reason given, per field, for a value nested too deep. */
export const TOO_DEEP_REASON = `is nested deeper than ${MAX_DEPTH} levels`;

/**
 * The path of the first own `__proto__` key, or undefined: for a transport whose parser keeps
 * such keys but whose next step drops them silently (the MCP SDK's schema parse).
 */
export function findProtoKey(value: unknown): string | undefined {
  const found = findKey(value, (key) => key === "__proto__", "", 0);
  return found?.key === "__proto__" ? found.path : undefined;
}

/** In `u` mode a pair is one code point, so only an unpaired half matches. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Why a string cannot be stored or compared faithfully, or undefined when it can. */
function textProblem(text: string): string | undefined {
  // NUL truncates strings in C drivers and some databases (FerretDB refuses them); a lone
  // surrogate is not Unicode, so it is stored as U+FFFD or refused, depending on the store.
  if (text.includes("\u0000")) return "may not contain NUL characters";
  if (LONE_SURROGATE.test(text)) return "may not contain a lone surrogate (malformed UTF-16)";
  return undefined;
}

/** The path and reason of the first string (key or value) `textProblem` refuses. */
function findBadText(
  value: unknown,
  path: string,
  depth: number,
): { path: string; reason: string } | undefined {
  if (typeof value === "string") {
    const reason = textProblem(value);
    return reason ? { path: path || "(root)", reason } : undefined;
  }
  if (depth > MAX_DEPTH || typeof value !== "object" || value === null) return undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findBadText(item, path ? `${path}.${index}` : String(index), depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  for (const key of Object.keys(value)) {
    const childPath = path ? `${path}.${key}` : key;
    const keyReason = textProblem(key);
    // The key itself cannot be shown faithfully: name the parent and say why.
    if (keyReason) return { path: path || "(root)", reason: `keys ${keyReason}` };
    const found = findBadText(value[key], childPath, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * For filters, sorts and every other input: no `$where`/`$expr`/`$function`, no prototype keys,
 * no NUL or lone surrogate in any string.
 */
export function assertNoForbiddenKeys(value: unknown, label: string): void {
  const found = findKey(value, (key) => FORBIDDEN.has(key) || PROTOTYPE_KEYS.has(key), "", 0);
  if (!found) {
    assertWellFormedText(value, label);
    return;
  }
  // The detail names no reason: `fields` says it once (a tool's error text lists both).
  const reason = FORBIDDEN.has(found.key)
    ? `operator ${found.key} is not allowed`
    : describeKey(found.key);
  throw validationFailed(`Invalid ${label}.`, { [found.path]: reason });
}

/** Refuses NUL characters and lone surrogates in any string of `value` (keys included). */
function assertWellFormedText(value: unknown, label: string): void {
  const bad = findBadText(value, "", 0);
  if (bad) throw validationFailed(`Invalid ${label}.`, { [bad.path]: bad.reason });
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
    throw validationFailed("Invalid body.", {
      [found.path]: `keys may not start with "$", contain "." or be empty`,
    });
  }
}
