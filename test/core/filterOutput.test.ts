/**
 * The core's filter output, as pure functions: buildFilter hands the database values already
 * coerced inside `$or`/`$and` branches (Mongoose would cast most of them again, so no surface
 * shows it), and conjoinFilters lays a scope over a caller's filter in a fixed shape (a repeated
 * condition kept once, `$and`s appended). What callers see of both, on REST, MCP and the AI
 * tools, is in test/contract/cases/combinators.ts.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import mongoose from "mongoose";
import { buildFilter, conjoinFilters, type FilterRules } from "../../src/core/filter.js";
import { IsAuthenticated } from "../../src/core/permissions.js";
import type { PlainObject } from "../../src/core/types.js";
import { buildView } from "../../src/core/view.js";
import { describeModel } from "../../src/schema/describeModel.js";
import { buildTodoModel } from "../schema/fixtures.js";

const description = describeModel(buildTodoModel().Todo);
const rules: FilterRules = {
  description,
  view: buildView("tools", description, {
    permissions: { list: [IsAuthenticated] },
    queryFields: ["title", "completed", "priority", "dueDate", "tags", "ownerId"],
  }),
};

describe("buildFilter: branches reach the database coerced", () => {
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
