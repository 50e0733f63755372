/**
 * The portability checker itself: it must catch every construct some client rejects.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assertPortable, portabilityProblems } from "../../src/schema/portability.js";

describe("assertPortable", () => {
  it("accepts a plain object schema", () => {
    assert.doesNotThrow(() =>
      assertPortable({
        type: "object",
        properties: {
          a: { type: "string", format: "date-time" },
          b: { anyOf: [{ type: "string" }, { type: "null" }] },
        },
        additionalProperties: false,
      }),
    );
  });

  it("rejects a non-object root and root combinators", () => {
    assert.throws(() => assertPortable({ type: "string" }), /root\): type must be "object"/);
    assert.throws(() => assertPortable({ type: "object", anyOf: [] }), /uses anyOf/);
    assert.throws(() => assertPortable("nope"), /not a schema object/);
  });

  it("rejects $ref, $defs, const, type arrays and unsupported formats at any depth", () => {
    const problems = portabilityProblems({
      type: "object",
      $defs: {},
      properties: {
        a: { $ref: "#/$defs/x" },
        b: { type: ["string", "null"] },
        c: { type: "array", items: { const: 1 } },
        d: { type: "object", additionalProperties: { type: "string", format: "uri" } },
        e: { anyOf: [{ type: "string", format: "hostname" }] },
      },
    });
    assert.deepEqual(problems, [
      "(root): uses $defs",
      "(root).properties.a: uses $ref",
      "(root).properties.b: has a type array",
      "(root).properties.c.items: uses const",
      "(root).properties.d.additionalProperties: uses format uri",
      "(root).properties.e.anyOf[0]: uses format hostname",
    ]);
  });

  it("with closedObjects, requires additionalProperties: false on objects with properties", () => {
    const schema = {
      type: "object",
      properties: { a: { type: "object", properties: {} } },
      additionalProperties: false,
    };
    assert.doesNotThrow(() => assertPortable(schema));
    assert.throws(
      () => assertPortable(schema, { closedObjects: true }),
      /properties\.a: object without/,
    );
    // An explicit opening (a ref's object form, whose other keys are ignored) is stated, not forgotten.
    const opened = {
      ...schema,
      properties: { a: { ...schema.properties.a, additionalProperties: true } },
    };
    assert.doesNotThrow(() => assertPortable(opened, { closedObjects: true }));
  });
});
