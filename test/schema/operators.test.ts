/**
 * Filter operator allowlists per field type and the JSON Schema of a filter value.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeModel } from "../../src/schema/describeModel.js";
import {
  allowedOperators,
  FORBIDDEN_OPERATORS,
  filterRules,
  filterValueSchema,
  MAX_FILTER_STRING_LENGTH,
  MAX_IN_ITEMS,
  MAX_REGEX_LENGTH,
  operatorRules,
  parseFilterDate,
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

  it("offers no $regex on an enum: its values are matched with $eq/$in", () => {
    assert.deepEqual(allowedOperators(field("status")), ["$eq", "$ne", "$in", "$nin", "$exists"]);
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
  it("is anyOf [plain value, object]: the operators are said once, in the description", () => {
    assert.deepEqual(filterValueSchema(field("completed")), {
      anyOf: [{ type: "boolean" }, { type: "object" }],
    });
  });

  it("names an enum's values once per field (issue #22: they were repeated five times)", () => {
    const schema = filterValueSchema(field("status"));
    assert.deepEqual(schema, {
      anyOf: [{ type: "string", enum: ["open", "closed"] }, { type: "object" }],
    });
    assert.equal(JSON.stringify(schema).split('"open"').length - 1, 1);
  });

  it("operatorRules: the common set, then each field that takes more or fewer", () => {
    const rules = operatorRules(
      ["title", "completed", "priority", "dueDate", "status", "ownerId", "tags"].map(field),
    );
    assert.equal(
      rules,
      "Operators: $eq, $ne, $in, $nin, $exists; also $regex on title, tags; also $gt, $gte, $lt, $lte on priority, dueDate; no $in, $nin on completed.",
    );
    // Derived from allowedOperators, so what it says is what the core takes.
    for (const path of ["title", "completed", "priority", "dueDate", "status", "ownerId"]) {
      for (const operator of allowedOperators(field(path))) assert.ok(rules.includes(operator));
    }
  });

  it("filterRules: the limits, only for the kinds present, naming date and id fields", () => {
    const rules = filterRules([field("title"), field("ownerId"), field("dueDate")]);
    assert.match(rules, new RegExp(`Strings ≤${MAX_FILTER_STRING_LENGTH} chars`));
    assert.match(rules, new RegExp(`\\$in/\\$nin: a list of ≤${MAX_IN_ITEMS} values`));
    assert.match(rules, new RegExp(`\\$regex: JS regex ≤${MAX_REGEX_LENGTH} chars without NUL`));
    assert.match(rules, /\$options: flags imsx/);
    assert.match(rules, /Ids \(ownerId\): 24 hex chars/);
    assert.match(rules, /Dates \(dueDate\): ISO 8601 date or date-time with zone/);
    assert.doesNotMatch(filterRules([field("completed")]), /Strings|\$regex|Dates|Ids/);
  });

  it("types ids and dates as strings: their syntax is the core's, said once in the description", () => {
    assert.deepEqual(filterValueSchema(field("tags")).anyOf?.[0], { type: "string" });
    assert.deepEqual(filterValueSchema(field("dueDate")).anyOf?.[0], { type: "string" });
    assert.deepEqual(filterValueSchema(field("ownerId")).anyOf?.[0], { type: "string" });
  });

  it("offers only $exists for mixed values, so no untyped branch can carry operators", () => {
    assert.deepEqual(filterValueSchema(field("extra")), {
      type: "object",
      properties: { $exists: { type: "boolean" } },
      additionalProperties: false,
    });
  });

  it("validates plain filter value types end to end", () => {
    const validate = compileValidator({
      type: "object",
      properties: {
        priority: filterValueSchema(field("priority")),
        ownerId: filterValueSchema(field("ownerId")),
        status: filterValueSchema(field("status")),
        extra: filterValueSchema(field("extra")),
      },
      additionalProperties: false,
    });
    assert.deepEqual(
      validate({ priority: { $gte: 2, $lt: 5 }, ownerId: "0123456789abcdef01234567" }),
      { ok: true },
    );
    assert.equal(validate({ priority: "2" }).ok, false, "typed: no string for a number");
    assert.equal(validate({ status: "pending" }).ok, false);
    assert.equal(validate({ extra: { $eq: 1 } }).ok, false);
  });
});

describe("parseFilterDate", () => {
  it("takes ISO 8601 dates and zoned date-times, and nothing Date would merely guess at", () => {
    assert.equal(parseFilterDate("2031-01-01")?.toISOString(), "2031-01-01T00:00:00.000Z");
    assert.equal(
      parseFilterDate("2031-01-01T09:30:00+02:00")?.toISOString(),
      "2031-01-01T07:30:00.000Z",
    );
    assert.equal(parseFilterDate("2031-01-01T09:30Z")?.toISOString(), "2031-01-01T09:30:00.000Z");
    for (const bad of [
      "March 7, 2031",
      "2031-02-30",
      "2031-01-01T09:30:00",
      "2031-01-01T25:00:00Z",
      "1700000000000",
      "",
    ]) {
      assert.equal(parseFilterDate(bad), undefined, bad);
    }
  });
});
