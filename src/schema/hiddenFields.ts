/**
 * Hidden-field rules: bare names hide a key at every depth, dotted paths hide one location,
 * and `select: false` paths are always hidden. Built once per model and surface; the strip
 * runs on every response, so all lookups are precomputed sets.
 */
import type { ModelDescription } from "./types.js";

export interface HiddenFields {
  /** Names hidden wherever they appear (including inside populated documents). */
  readonly bareNames: ReadonlySet<string>;
  /** Exact dotted locations hidden (with everything below them). */
  readonly paths: ReadonlySet<string>;
  /** `path` is the full dotted path from the root, array indices removed. */
  isHidden(path: string): boolean;
  isHiddenName(name: string): boolean;
  /**
   * Deep-copies a serialized (plain JSON) value without its hidden keys. `basePath` is where
   * `value` sits in the root document (e.g. `items` when stripping one array element).
   * Non-plain objects (Dates, ObjectIds, Buffers) are passed through untouched.
   */
  stripHidden(value: unknown, basePath?: string): unknown;
}

type PlainRecord = Record<string, unknown>;

function isPlainObject(value: unknown): value is PlainRecord {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Plain assignment of `__proto__` would replace the copy's prototype; define it instead. */
function setOwn(target: PlainRecord, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}

/** `exactPaths`: locations hidden where they are only, even when undotted (field rules). */
export function createHiddenFields(
  excludeFields: readonly string[],
  description: ModelDescription,
  exactPaths: readonly string[] = [],
): HiddenFields {
  const bareNames = new Set<string>();
  const paths = new Set<string>(exactPaths);
  for (const entry of excludeFields) {
    const name = entry.trim();
    if (name === "") continue;
    if (name.includes(".")) paths.add(name);
    else bareNames.add(name);
  }
  for (const [path, field] of description.byPath) {
    if (field.selectFalse) paths.add(path);
  }
  // Every strict prefix of a hidden path: only below these can a dotted rule still match.
  const prefixes = new Set<string>();
  for (const path of paths) {
    let dot = path.indexOf(".");
    while (dot !== -1) {
      prefixes.add(path.slice(0, dot));
      dot = path.indexOf(".", dot + 1);
    }
  }

  function isHidden(path: string): boolean {
    const segments = path.split(".");
    let prefix = "";
    for (const segment of segments) {
      prefix = prefix === "" ? segment : `${prefix}.${segment}`;
      if (bareNames.has(segment) || paths.has(prefix)) return true;
    }
    return false;
  }

  /** `tracking`: whether some dotted rule lies below `base`, so child paths must be built. */
  function strip(value: unknown, base: string, tracking: boolean): unknown {
    if (Array.isArray(value)) return value.map((item) => strip(item, base, tracking));
    if (!isPlainObject(value)) return value;
    const copy: PlainRecord = {};
    for (const key of Object.keys(value)) {
      if (bareNames.has(key)) continue;
      if (tracking) {
        const path = base === "" ? key : `${base}.${key}`;
        if (paths.has(path)) continue;
        setOwn(copy, key, strip(value[key], path, prefixes.has(path)));
      } else {
        setOwn(copy, key, strip(value[key], "", false));
      }
    }
    return copy;
  }

  return {
    bareNames,
    paths,
    isHidden,
    isHiddenName: (name) => bareNames.has(name),
    stripHidden(value, basePath = "") {
      const tracking = basePath === "" ? paths.size > 0 : prefixes.has(basePath);
      return strip(value, basePath, tracking);
    },
  };
}
