/**
 * The advertised input schema of a custom tool (and an action) closes its plain objects, as
 * the server refuses their unknown keys; records and loose objects stay open, and
 * `allowUnknownKeys` leaves zod's own schema.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import type { JsonSchema } from "../../src/schema/types.js";
import { customToolDefinition } from "../../src/tools/actionTools.js";

const input = z.object({
  text: z.string(),
  nested: z.object({ n: z.number() }).nullable().optional(),
  items: z.array(z.object({ label: z.string() })),
  scores: z.record(z.string(), z.number()),
  extra: z.looseObject({ kind: z.string() }),
});

const schemaOf = (allowUnknownKeys?: boolean): JsonSchema =>
  customToolDefinition("closed_schema_probe", {
    description: "Probe.",
    input,
    ...(allowUnknownKeys ? { allowUnknownKeys } : {}),
    handler: () => null,
  }).inputSchema;

describe("custom tool input schemas", () => {
  it("close every plain object, at the top and nested", () => {
    const schema = schemaOf();
    const properties = schema.properties ?? {};
    assert.equal(schema.additionalProperties, false);
    const nested = properties.nested?.anyOf?.find((branch) => branch.type === "object");
    assert.equal(nested?.additionalProperties, false);
    assert.equal(properties.items?.items?.additionalProperties, false);
  });

  it("leave records and loose objects open", () => {
    const properties = schemaOf().properties ?? {};
    assert.deepEqual(properties.scores?.additionalProperties, { type: "number" });
    assert.notEqual(properties.extra?.additionalProperties, false);
  });

  it("are zod's own with allowUnknownKeys", () => {
    const schema = schemaOf(true);
    assert.equal(schema.additionalProperties, undefined);
  });
});
