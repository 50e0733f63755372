/**
 * Filter operator allowlists per field type and the JSON Schema of a filter value.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeModel } from "../../src/schema/describeModel.js";
import {
  allowedOperators,
  FORBIDDEN_OPERATORS,
  filterValueSchema,
  MAX_IN_ITEMS,
  MAX_REGEX_LENGTH,
} from "../../src/schema/operators.js";
import type { FieldDescriptor } from "../../src/schema/types.js";
import { compileValidator } from "../../src/schema/validator.js";
import { buildTodoModel } from "./fixtures.js";

const todo = describeModel(buildTodoModel().Todo);
const field = (path: string): FieldDescriptor => {
  const found = todo.byPath.get(path);
  assert.ok(found, path);
  return found;
};

describe("allowedOperators", () => {
  it("allows per-type operators", () => {
    assert.deepEqual(allowedOperators(field("title")), [
      "$eq",
      "$ne",
      "$in",
      "$nin",
      "$exists",
      "$regex",
    ]);
    const ordered = ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists"];
    assert.deepEqual(allowedOperators(field("priority")), ordered);
    assert.deepEqual(allowedOperators(field("dueDate")), ordered);
    assert.deepEqual(allowedOperators(field("completed")), ["$eq", "$ne", "$exists"]);
    assert.deepEqual(allowedOperators(field("ownerId")), ["$eq", "$ne", "$in", "$nin", "$exists"]);
  });

  it("filters arrays by their item type; objects, maps and mixed only by presence", () => {
    assert.deepEqual(allowedOperators(field("tags")), allowedOperators(field("title")));
    assert.deepEqual(allowedOperators(field("items")), ["$exists"]);
    assert.deepEqual(allowedOperators(field("address")), ["$exists"]);
    assert.deepEqual(allowedOperators(field("meta")), ["$exists"]);
    assert.deepEqual(allowedOperators(field("extra")), ["$exists"]);
  });

  it("never allows a forbidden operator", () => {
    assert.deepEqual(FORBIDDEN_OPERATORS, [
      "$where",
      "$expr",
      "$function",
      "$accumulator",
      "$jsonSchema",
    ]);
    for (const f of todo.byPath.values()) {
      for (const op of FORBIDDEN_OPERATORS) assert.equal(allowedOperators(f).includes(op), false);
    }
  });
});

describe("filterValueSchema", () => {
  it("is anyOf [plain value, operator object] for a boolean", () => {
    assert.deepEqual(filterValueSchema(field("completed")), {
      anyOf: [
        { type: "boolean" },
        {
          type: "object",
          properties: {
            $eq: { type: "boolean" },
            $ne: { type: "boolean" },
            $exists: { type: "boolean" },
          },
          additionalProperties: false,
          minProperties: 1,
        },
      ],
    });
  });

  it("gives $in arrays a cap, $regex a length limit and $options a flag pattern", () => {
    const schema = filterValueSchema(field("status"));
    const [plain, ops] = schema.anyOf ?? [];
    assert.deepEqual(plain, { type: "string", enum: ["open", "closed"] });
    assert.deepEqual(ops.properties?.$in, {
      type: "array",
      items: { type: "string", enum: ["open", "closed"] },
      maxItems: MAX_IN_ITEMS,
      description: "At most 100 values.",
    });
    assert.deepEqual(ops.properties?.$regex, {
      type: "string",
      maxLength: MAX_REGEX_LENGTH,
      description: "Regular expression, at most 200 characters.",
    });
    assert.equal(ops.properties?.$options?.pattern, "^[imsx]{0,4}$");
  });

  it("uses the item type for arrays and date-time strings for dates", () => {
    const tags = filterValueSchema(field("tags"));
    assert.deepEqual(tags.anyOf?.[0], { type: "string" });
    const due = filterValueSchema(field("dueDate"));
    assert.deepEqual(due.anyOf?.[0], { type: "string", format: "date-time" });
    assert.deepEqual(due.anyOf?.[1].properties?.$gte, { type: "string", format: "date-time" });
  });

  it("offers only $exists for mixed values, so no untyped branch can carry operators", () => {
    assert.deepEqual(filterValueSchema(field("extra")), {
      type: "object",
      properties: { $exists: { type: "boolean" } },
      additionalProperties: false,
      minProperties: 1,
    });
  });

  it("validates filter values end to end", () => {
    const validate = compileValidator({
      type: "object",
      properties: {
        priority: filterValueSchema(field("priority")),
        ownerId: filterValueSchema(field("ownerId")),
      },
      additionalProperties: false,
    });
    assert.deepEqual(
      validate({ priority: { $gte: 2, $lt: 5 }, ownerId: "0123456789abcdef01234567" }),
      { ok: true },
    );
    assert.equal(validate({ priority: { $where: "1" } }).ok, false);
    assert.equal(validate({ priority: { $regex: "x" } }).ok, false);
    assert.equal(
      validate({ ownerId: { $in: Array.from({ length: 101 }, () => "0123456789abcdef01234567") } })
        .ok,
      false,
    );
    assert.equal(validate({ ownerId: "not-an-id" }).ok, false);
  });
});
