/**
 * The filter language, one meaning on every surface: REST sends it as a query string
 * (`calories[$gt]=100`, see drivers/rest.ts), tools as JSON. Carol owns exactly the todos in
 * CAROL_TODOS, and only CONTRACT_FOODS have names starting with "ctr-". Every expected result
 * fits one tool page (at most 5).
 */
import assert from "node:assert/strict";
import type { ListArgs } from "../drivers/types.js";
import { assertNotReceived, expectError, expectOk, pluck } from "../expect.js";
import type { Failure } from "../outcome.js";
import { HIDDEN_NOTE, seedTodo } from "../world.js";
import type { CaseContext, ContractCase } from "./types.js";

const group = "filters";

async function carolTitles({ driver }: CaseContext, filter: ListArgs["filter"]) {
  const outcome = expectOk(await driver.list("carol", "todos", { filter, sort: "title" }), "list");
  assert.equal(outcome.page?.total, (outcome.data as unknown[]).length, "one page holds them all");
  return pluck(outcome, "title");
}

/** The message a failure gives for `field` (a key `field` or `….field`). */
function reasonFor(failure: Failure, field: string): string | undefined {
  const entry = Object.entries(failure.fields ?? {}).find(
    ([key]) => key === field || key.endsWith(`.${field}`),
  );
  return entry?.[1];
}

/** Two refusals that differ only in the field's name: no oracle for the hidden one. */
function assertSameRefusal(
  hidden: Failure,
  unknown: Failure,
  hiddenName: string,
  unknownName: string,
) {
  assert.equal(reasonFor(hidden, hiddenName), reasonFor(unknown, unknownName));
  assert.ok(reasonFor(hidden, hiddenName), "the refusal names the field");
  assert.equal(
    hidden.detail.replaceAll(hiddenName, "<field>"),
    unknown.detail.replaceAll(unknownName, "<field>"),
  );
}

export const filterCases: ContractCase[] = [
  {
    group,
    name: "equality on a number, a boolean and an array item",
    smoke: true,
    async run(ctx) {
      assert.deepEqual(await carolTitles(ctx, { priority: 3 }), ["t02", "t07"]);
      assert.deepEqual(await carolTitles(ctx, { completed: true, tags: "even" }), ["t00", "t06"]);
    },
  },
  {
    group,
    name: "$gt and $gte on a number",
    async run(ctx) {
      assert.deepEqual(await carolTitles(ctx, { priority: { $gt: 4 } }), ["t04", "t09"]);
      assert.deepEqual(await carolTitles(ctx, { priority: { $gte: 4 } }), [
        "t03",
        "t04",
        "t08",
        "t09",
      ]);
    },
  },
  {
    group,
    name: "$in and $regex on a string",
    async run(ctx) {
      assert.deepEqual(await carolTitles(ctx, { title: { $in: ["t01", "t05", "nope"] } }), [
        "t01",
        "t05",
      ]);
      assert.deepEqual(await carolTitles(ctx, { title: { $regex: "^t1" } }), ["t10", "t11"]);
    },
  },
  {
    group,
    name: "calories $gt 100 (REST: ?calories[$gt]=100) combined with a name $regex",
    async run({ driver }) {
      const outcome = expectOk(
        await driver.list("bob", "foods", {
          filter: { name: { $regex: "^ctr-" }, calories: { $gt: 100 } },
          sort: "name",
        }),
        "list",
      );
      assert.deepEqual(pluck(outcome, "name"), ["ctr-bagel", "ctr-pizza"]);
      assert.equal(outcome.page?.total, 2);
    },
  },
  {
    group,
    name: "an unknown field is refused with validation_failed naming it",
    async run({ driver }) {
      expectError(await driver.list("carol", "todos", { filter: { nosuch: 1 } }), {
        code: "validation_failed",
        fields: ["nosuch"],
      });
    },
  },
  {
    group,
    name: "a select:false field is refused exactly like an unknown one (no oracle)",
    async run({ driver }) {
      const hidden = expectError(await driver.list("alice", "memos", { filter: { secret: "x" } }), {
        code: "validation_failed",
        fields: ["secret"],
      });
      const unknown = expectError(
        await driver.list("alice", "memos", { filter: { nosuch: "x" } }),
        { code: "validation_failed", fields: ["nosuch"] },
      );
      assertSameRefusal(hidden, unknown, "secret", "nosuch");
    },
  },
  {
    group,
    name: "internalNote: refused like an unknown field on tools, a working filter on REST",
    async run({ driver, world, tag }) {
      await seedTodo(world.accounts.alice, { title: `noted ${tag}` });
      const outcome = await driver.list("alice", "todos", {
        filter: { internalNote: HIDDEN_NOTE, title: `noted ${tag}` },
      });
      if (driver.surface === "rest") {
        assert.deepEqual(pluck(expectOk(outcome, "list"), "title"), [`noted ${tag}`]);
        return;
      }
      const hidden = expectError(outcome, { code: "validation_failed", fields: ["internalNote"] });
      assertNotReceived(hidden, HIDDEN_NOTE);
      const unknown = expectError(
        await driver.list("alice", "todos", {
          filter: { nosuchfield: HIDDEN_NOTE, title: `noted ${tag}` },
        }),
        { code: "validation_failed", fields: ["nosuchfield"] },
      );
      assertSameRefusal(hidden, unknown, "internalNote", "nosuchfield");
    },
  },
  {
    group,
    name: "$where is refused, at the top level and on a field",
    smoke: true,
    async run({ driver }) {
      for (const filter of [{ $where: "sleep(100) || true" }, { title: { $where: "1" } }]) {
        const refused = expectError(await driver.list("carol", "todos", { filter }), {
          code: "validation_failed",
        });
        assert.match(
          `${refused.detail} ${JSON.stringify(refused.fields ?? {})}`,
          /\$where/,
          "the refusal names $where",
        );
      }
    },
  },
  {
    group,
    name: "an operator the field's type does not allow ($gt on a string) is refused",
    async run({ driver }) {
      expectError(await driver.list("carol", "todos", { filter: { title: { $gt: "" } } }), {
        code: "validation_failed",
        fields: ["title"],
      });
    },
  },
];
