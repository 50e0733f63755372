/**
 * How a UI message's parts are kept in MongoDB: as one JSON string (`partsJson`), so that tool
 * inputs and outputs with `$` or dotted keys (`{"status": {"$in": [...]}}`, which FerretDB
 * refuses and MongoDB restricts) round-trip losslessly, and no `undefined` becomes a `null`.
 * Rows stored before (parts as a document, with `null` where the SDK had no key) are repaired
 * when read.
 */
import type { UIMessage } from "ai";
import type { PlainObject } from "../core/types.js";

type Part = UIMessage["parts"][number];

/** Keys of a part whose values are the tool's or the user's data: a `null` there is data. */
const DATA_KEYS = new Set(["input", "output", "data"]);

function isPlainObject(value: unknown): value is PlainObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function withoutNulls(value: PlainObject, keep: ReadonlySet<string> = new Set()): PlainObject {
  const out: PlainObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === null && !keep.has(key)) continue;
    out[key] = item;
  }
  return out;
}

/**
 * One part as the AI SDK expects it: no key whose value is `null` (the SDK's schema has optional
 * keys, never nullable ones), except inside the data a tool took or returned.
 */
function repairPart(part: unknown): Part {
  if (!isPlainObject(part)) return part as Part;
  const repaired = withoutNulls(part, DATA_KEYS);
  if (isPlainObject(repaired.approval)) repaired.approval = withoutNulls(repaired.approval);
  return repaired as Part;
}

/** What the ChatMessage row stores for `parts`: the JSON text (undefined values dropped). */
export function encodeParts(parts: readonly unknown[]): string {
  return JSON.stringify(parts.map(repairPart));
}

/** The parts of a stored row, new (`partsJson`) or old (`parts`), repaired either way. */
export function decodeParts(row: PlainObject): Part[] {
  let parts: unknown = row.parts;
  if (typeof row.partsJson === "string") {
    try {
      parts = JSON.parse(row.partsJson);
    } catch {
      parts = [];
    }
  }
  return Array.isArray(parts) ? parts.map(repairPart) : [];
}
