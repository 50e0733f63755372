/**
 * `$or`/`$and` in list filters (issue #12 item 5), on the pure core: branches follow the same
 * field rules as the top level, nesting and branch counts are bounded, errors name the path,
 * and a caller's filter is conjoined with (never merged over) a scope.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import mongoose from "mongoose";
import { TerrenoError } from "../../src/core/errors.js";
import {
  buildFilter,
  conjoinFilters,
  type FilterRules,
  MAX_COMBINATOR_BRANCHES,
} from "../../src/core/filter.js";
import { IsAuthenticated } from "../../src/core/permissions.js";
import type { PlainObject } from "../../src/core/types.js";
import { buildView } from "../../src/core/view.js";
import { describeModel } from "../../src/schema/describeModel.js";
import { buildTodoModel } from "../schema/fixtures.js";

const description = describeModel(buildTodoModel().Todo);
const options = {
  permissions: { list: [IsAuthenticated] },
  // secret is select:false and internalNote is excluded from tools: neither is filterable there.
  queryFields: ["title", "completed", "priority", "dueDate", "tags", "ownerId", "internalNote"],
  mcp: { excludeFields: ["internalNote"] },
};
const rules: FilterRules = { description, view: buildView("tools", description, options) };
const restRules: FilterRules = { description, view: buildView("rest", description, options) };

function refusal(input: PlainObject, with_: FilterRules = rules): TerrenoError {
  try {
    buildFilter(input, with_);
  } catch (error) {
    assert.ok(error instanceof TerrenoError, String(error));
    assert.equal(error.code, "validation_failed");
    return error;
  }
  assert.fail(`accepted ${JSON.stringify(input)}`);
}

const branches = (n: number) => Array.from({ length: n }, (_, i) => ({ title: `t${i}` }));

describe("buildFilter: $or and $and", () => {
  it("accepts top-level $or/$and next to fields, coercing every branch by field type", () => {
    const filter = buildFilter(
      {
        completed: "false",
        $or: [{ title: "a" }, { $and: [{ priority: { $gte: "3" } }, { completed: "true" }] }],
        $and: [{ dueDate: { $lt: "2026-01-01T00:00:00Z" } }, { tags: { $in: "x,y" } }],
      },
      rules,
    );
    assert.deepEqual(filter, {
      completed: false,
      $or: [{ title: "a" }, { $and: [{ priority: { $gte: 3 } }, { completed: true }] }],
      $and: [{ dueDate: { $lt: new Date("2026-01-01T00:00:00Z") } }, { tags: { $in: ["x", "y"] } }],
    });
  });

  it("accepts an ObjectId and a $regex inside a branch", () => {
    const id = "0123456789abcdef01234567";
    const filter = buildFilter(
      { $or: [{ ownerId: id }, { title: { $regex: "^a", $options: "i" } }] },
      rules,
    );
    const [byOwner, byTitle] = filter.$or as PlainObject[];
    assert.ok(byOwner.ownerId instanceof mongoose.Types.ObjectId);
    assert.equal(String(byOwner.ownerId), id);
    assert.deepEqual(byTitle, { title: { $regex: /^a/i } });
  });

  it(`accepts ${MAX_COMBINATOR_BRANCHES} branches and refuses ${MAX_COMBINATOR_BRANCHES + 1}`, () => {
    assert.equal((buildFilter({ $or: branches(10) }, rules).$or as unknown[]).length, 10);
    for (const key of ["$or", "$and"]) {
      const error = refusal({ [key]: branches(11) });
      assert.match(error.fields?.[key] ?? "", /1 to 10 filter objects/);
      const nested = refusal({ $or: [{ [key]: branches(11) }] });
      assert.match(nested.fields?.[`$or.0.${key}`] ?? "", /1 to 10 filter objects/);
    }
  });

  it("accepts two levels of nesting and refuses a third, naming its path", () => {
    buildFilter({ $and: [{ $or: [{ title: "a" }, { priority: 1 }] }] }, rules);
    const error = refusal({
      $or: [{ title: "a" }, { $and: [{ $or: [{ title: "b" }] }, { completed: true }] }],
    });
    assert.deepEqual(Object.keys(error.fields ?? {}), ["$or.1.$and.0.$or"]);
    assert.match(error.fields?.["$or.1.$and.0.$or"] ?? "", /at most 2 levels/);
  });

  it("refuses empty, non-list and non-object branches", () => {
    const cases: Array<[PlainObject, string]> = [
      [{ $or: [] }, "$or"],
      [{ $and: "title" }, "$and"],
      [{ $or: { 0: { title: "a" } } }, "$or"],
      [{ $or: [{ title: "a" }, "b"] }, "$or.1"],
      [{ $or: [{ title: "a" }, {}] }, "$or.1"],
      [{ $or: [{ title: "a" }, [{ title: "b" }]] }, "$or.1"],
      [{ $or: [{ title: "a" }, null] }, "$or.1"],
    ];
    for (const [input, path] of cases) {
      const error = refusal(input);
      assert.ok(error.fields?.[path], `${JSON.stringify(input)} names ${path}: ${error.message}`);
    }
  });

  it("applies the per-field rules inside branches and names each bad path", () => {
    const error = refusal({
      $or: [
        { title: "ok" },
        { priority: "high" },
        { $and: [{ completed: { $gt: true } }, { createdAt: "2026-01-01" }] },
      ],
      $and: [{ tags: { $regex: "(unclosed" } }],
    });
    assert.deepEqual(Object.keys(error.fields ?? {}).sort(), [
      "$and.0.tags",
      "$or.1.priority",
      "$or.2.$and.0.completed",
      "$or.2.$and.1.createdAt",
    ]);
    assert.equal(error.fields?.["$or.1.priority"], "must be a number");
    assert.match(error.fields?.["$or.2.$and.0.completed"] ?? "", /operator \$gt is not allowed/);
    assert.equal(error.fields?.["$or.2.$and.1.createdAt"], "is not a filterable field");
  });

  it("answers a hidden field inside a branch exactly like an unknown one (no oracle)", () => {
    // internalNote is excluded from tools (REST may filter it); secret is select:false everywhere.
    for (const [hidden, view] of [
      ["internalNote", rules],
      ["secret", rules],
      ["secret", restRules],
    ] as const) {
      for (const wrap of [
        (key: string) => ({ $or: [{ title: "a" }, { [key]: "x" }] }),
        (key: string) => ({ $and: [{ $or: [{ [key]: { $exists: true } }] }] }),
      ]) {
        const hiddenError = refusal(wrap(hidden), view);
        const unknownError = refusal(wrap("noSuchField"), view);
        assert.equal(hiddenError.message, unknownError.message);
        assert.deepEqual(
          Object.values(hiddenError.fields ?? {}),
          Object.values(unknownError.fields ?? {}),
        );
        assert.deepEqual(
          Object.keys(hiddenError.fields ?? {}).map((k) => k.replace(hidden, "FIELD")),
          Object.keys(unknownError.fields ?? {}).map((k) => k.replace("noSuchField", "FIELD")),
        );
      }
    }
    // REST may filter internalNote, inside a branch too.
    buildFilter({ $or: [{ internalNote: "x" }] }, restRules);
  });

  it("refuses $where/$expr/$function anywhere in a branch, naming the branch", () => {
    for (const operator of ["$where", "$expr", "$function"]) {
      const inBranch = refusal({ $or: [{ title: "a" }, { [operator]: "1" }] });
      assert.match(inBranch.message, new RegExp(`\\${operator}`));
      assert.deepEqual(Object.keys(inBranch.fields ?? {}), ["$or.1"]);
      const inNested = refusal({ $or: [{ $and: [{ title: { [operator]: "1" } }] }] });
      assert.deepEqual(Object.keys(inNested.fields ?? {}), ["$or.0.$and.0.title"]);
    }
  });

  it("still refuses every other top-level or branch-level $ key", () => {
    for (const operator of ["$nor", "$not", "$text", "$comment", "$gt", "$elemMatch"]) {
      const top = refusal({ [operator]: [{ title: "a" }] });
      assert.match(top.fields?.[operator] ?? "", /not allowed/, operator);
      const inBranch = refusal({ $or: [{ [operator]: [{ title: "a" }] }] });
      assert.match(inBranch.fields?.[`$or.0.${operator}`] ?? "", /not allowed/, operator);
    }
  });
});

describe("conjoinFilters: a scope is added, never merged over", () => {
  const scope = { ownerId: "me" };

  it("keeps a caller's $or beside the scope (both must hold)", () => {
    const caller = { $or: [{ ownerId: "other" }, { title: "a" }] };
    assert.deepEqual(conjoinFilters(caller, scope), { ...caller, ownerId: "me" });
  });

  it("moves a key both name under $and instead of overwriting either", () => {
    assert.deepEqual(conjoinFilters({ ownerId: "other", title: "a" }, scope), {
      ownerId: "other",
      title: "a",
      $and: [{ ownerId: "me" }],
    });
    const orScope = { $or: [{ ownerId: "me" }, { shared: true }] };
    assert.deepEqual(conjoinFilters({ $or: [{ title: "a" }] }, orScope), {
      $or: [{ title: "a" }],
      $and: [orScope],
    });
  });

  it("appends to $and when both have one, and skips an identical condition", () => {
    assert.deepEqual(
      conjoinFilters(
        { $and: [{ title: "a" }], ownerId: "me" },
        { $and: [{ x: 1 }], ownerId: "me" },
      ),
      { $and: [{ title: "a" }, { x: 1 }], ownerId: "me" },
    );
    assert.deepEqual(conjoinFilters({ title: "a" }, {}), { title: "a" });
  });
});
