/**
 * Zod 4 schemas for action and custom-tool inputs/outputs: one validation (the zod schema
 * itself, with its errors as dotted field paths in `validation_failed`) and one JSON Schema
 * (`z.toJSONSchema`, post-processed to the subset every MCP client and model provider
 * accepts: root `type: "object"`, no `$schema`, `$ref`/`$defs`, type arrays or `const`).
 */
import { z } from "zod";
import type { JsonSchema } from "../schema/types.js";
import type { FieldErrors } from "./errors.js";
import { closeObjects } from "./unknownKeys.js";

/** Zod's own bounds for "any safe integer"; noise for a model, so they are dropped. */
const SAFE_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

function portable(node: unknown, where: string): unknown {
  if (Array.isArray(node)) return node.map((item) => portable(item, where));
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (key === "$schema") continue;
    if (key === "$ref" || key === "$defs" || key === "definitions") {
      throw new Error(
        `terreno-mcp: ${where}: the zod schema needs $ref/$defs (recursive or registered schemas), which many MCP clients reject. Inline it.`,
      );
    }
    if ((key === "minimum" || key === "maximum") && SAFE_BOUNDS.has(value as number)) continue;
    if (key === "const") {
      out.enum = [value];
      continue;
    }
    out[key] = portable(value, where);
  }
  // `type: ["string", "null"]` → `anyOf: [{type: "string", ...}, {type: "null"}]`.
  if (Array.isArray(out.type)) {
    const { type, ...rest } = out;
    const types = type as string[];
    const hasKeywords = Object.keys(rest).some((key) => key !== "description" && key !== "title");
    const branches = types.map((t) =>
      t === "null" || !hasKeywords ? { type: t } : { type: t, ...rest },
    );
    const annotations: Record<string, unknown> = {};
    if (rest.description !== undefined) annotations.description = rest.description;
    if (rest.title !== undefined) annotations.title = rest.title;
    return { anyOf: branches, ...annotations };
  }
  return out;
}

/**
 * The portable JSON Schema of a zod object schema (an input, or an action's output). Throws
 * at start-up when it cannot be portable (the root is not an object, or it needs `$ref`).
 * `closed`: plain objects get `additionalProperties: false` (what the validator enforces,
 * see `closedInputSchema`).
 */
export function portableJsonSchema(
  schema: z.ZodType,
  where: string,
  io: "input" | "output" = "input",
  options: { closed?: boolean } = {},
): JsonSchema {
  const raw = z.toJSONSchema(schema, { io, unrepresentable: "any" });
  const converted = portable(options.closed ? closeObjects(raw) : raw, where) as JsonSchema;
  if (converted.type !== "object") {
    throw new Error(`terreno-mcp: ${where}: the schema's root must be a z.object(...).`);
  }
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    if (key in converted) {
      throw new Error(`terreno-mcp: ${where}: the schema's root may not use ${key}.`);
    }
  }
  return converted;
}

const closedSchemas = new WeakMap<z.ZodType, unknown>();

/**
 * The input's JSON Schema with its plain objects closed, built once per zod schema: what
 * unknown keys are checked against before zod runs. A schema zod cannot convert is left open.
 */
export function closedInputSchema(schema: z.ZodType): unknown {
  if (!closedSchemas.has(schema)) {
    let closed: unknown = {};
    try {
      closed = closeObjects(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }));
    } catch {
      // Left open: zod's own validation still runs.
    }
    closedSchemas.set(schema, closed);
  }
  return closedSchemas.get(schema);
}

/** Zod issues as `{ "dotted.path": "reason" }`; the root is `(root)`. */
export function zodFieldErrors(error: z.ZodError): FieldErrors {
  const fields: FieldErrors = {};
  for (const issue of error.issues) {
    // An unrecognized key names the keys themselves, once each (as the CRUD validator does).
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const keyPath = issue.path.length > 0 ? `${issue.path.join(".")}.${key}` : key;
        fields[keyPath] ??= "is not an allowed field";
      }
      continue;
    }
    const path = issue.path.map(String).join(".") || "(root)";
    if (!(path in fields)) fields[path] = issue.message;
  }
  return fields;
}
