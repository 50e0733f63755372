/**
 * compileValidator: errors keyed by dotted path with short messages that never echo values.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeModel } from "../../src/schema/describeModel.js";
import { createHiddenFields } from "../../src/schema/hiddenFields.js";
import { writeSchema } from "../../src/schema/jsonSchema.js";
import { compileValidator, ROOT_KEY, type ValidationResult } from "../../src/schema/validator.js";
import { buildTodoModel } from "./fixtures.js";

const todo = describeModel(buildTodoModel().Todo);
const hidden = createHiddenFields([], todo);
const validateCreate = compileValidator(writeSchema(todo, { hidden, mode: "create" }));
const validateUpdate = compileValidator(writeSchema(todo, { hidden, mode: "update" }));

function failure(result: ValidationResult): { fields: Record<string, string>; message: string } {
  assert.equal(result.ok, false);
  if (result.ok) throw new Error("unreachable");
  return result;
}

describe("compileValidator", () => {
  it("accepts a valid body", () => {
    const body = {
      title: "Buy milk",
      dueDate: "2025-01-02T03:04:05Z",
      ownerId: "0123456789abcdef01234567",
      address: { city: "Paris", zip: "75001" },
      items: [{ name: "milk", qty: 2 }],
      meta: { a: 1 },
      extra: [1, "two", { three: 3 }],
    };
    assert.deepEqual(validateCreate(body), { ok: true });
  });

  it("names every failing path in dotted form with a short message", () => {
    const { fields } = failure(
      validateCreate({
        title: 5,
        priority: 9,
        status: "pending",
        address: { zip: "abc", country: "FR" },
        items: [{ qty: "x" }],
        meta: { a: "one" },
        dueDate: "tomorrow",
        bogus: true,
      }),
    );
    assert.deepEqual(fields, {
      bogus: "is not an allowed field",
      title: "must be a string",
      dueDate: "must be a valid date-time",
      priority: "must be <= 5",
      status: "must be one of: open, closed",
      "address.country": "is not an allowed field",
      "address.zip": "must match the pattern ^\\d{5}$",
      "items.0.name": "is required",
      "items.0.qty": "must be a number",
      "meta.a": "must be a number",
    });
  });

  it("reports a missing required field and root-level problems", () => {
    assert.deepEqual(failure(validateCreate({})).fields, { title: "is required" });
    // An empty merge patch is valid: it changes nothing.
    assert.equal(validateUpdate({}).ok, true);
    assert.deepEqual(failure(validateUpdate([])).fields, { [ROOT_KEY]: "must be an object" });
  });

  it("reports lengths and minimums in words", () => {
    assert.deepEqual(failure(validateCreate({ title: "x".repeat(201), priority: 0 })).fields, {
      title: "must be at most 200 characters (UTF-16 units: an emoji counts 2)",
      priority: "must be >= 1",
    });
  });

  it("counts lengths in UTF-16 units, as Mongoose's maxlength does", () => {
    // 100 emoji are 200 units (and 100 code points); one more is over, though 101 code points.
    assert.equal(validateCreate({ title: "\u{1F95B}".repeat(100), priority: 1 }).ok, true);
    assert.deepEqual(
      failure(validateCreate({ title: "\u{1F95B}".repeat(101), priority: 1 })).fields,
      {
        title: "must be at most 200 characters (UTF-16 units: an emoji counts 2)",
      },
    );
  });

  it("never echoes the offending value", () => {
    const secretValue = "TOP-SECRET-VALUE-1234";
    const result = failure(
      validateCreate({
        title: secretValue.repeat(20),
        status: secretValue,
        priority: secretValue,
        items: secretValue,
      }),
    );
    const text = JSON.stringify(result);
    assert.equal(text.includes(secretValue), false);
    assert.equal(result.message, "Invalid input.");
  });

  it("the message names no field: each reason is said once, in fields (issue #22)", () => {
    const body = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`x${i}`, 1]));
    const result = failure(validateUpdate(body));
    assert.equal(Object.keys(result.fields).length, 8);
    assert.equal(result.message, "Invalid input.");
  });

  it("prefers a nullable branch's own error over a generic anyOf message", () => {
    const validate = compileValidator(
      writeSchema(todo, { hidden, mode: "update", nullable: true }),
    );
    assert.deepEqual(validate({ dueDate: null, priority: null }), { ok: true });
    assert.deepEqual(failure(validate({ priority: 7, dueDate: 3 })).fields, {
      priority: "must be <= 5",
      dueDate: "must be a string",
    });
  });

  it("unescapes JSON pointer segments in paths", () => {
    const validate = compileValidator({
      type: "object",
      properties: { "a/b": { type: "object", properties: { "c~d": { type: "number" } } } },
    });
    assert.deepEqual(failure(validate({ "a/b": { "c~d": "x" } })).fields, {
      "a/b.c~d": "must be a number",
    });
  });
});
