/**
 * `$or`/`$and` in list filters (issue #12 item 5), one meaning on every surface: branches follow
 * the top level's field rules (and its coercion: REST sends `$or[0][priority][$gte]=5` as text),
 * nesting and branch counts are bounded, refusals name the path, and no caller `$or`/`$and`
 * widens a scope. Carol owns exactly CAROL_TODOS; every expected page fits one tool page (5).
 */
import assert from "node:assert/strict";
import type { ListArgs } from "../drivers/types.js";
import { assertNotReceived, expectError, expectOk, pluck } from "../expect.js";
import type { Failure } from "../outcome.js";
import { CAROL_TODOS, HIDDEN_NOTE, OPEN_DEFAULTS, seedTodo } from "../world.js";
import type { CaseContext, ContractCase } from "./types.js";

const group = "filter combinators";

type Filter = NonNullable<ListArgs["filter"]>;

async function carolTitles({ driver }: CaseContext, filter: Filter) {
  const outcome = expectOk(await driver.list("carol", "todos", { filter, sort: "title" }), "list");
  assert.equal(outcome.page?.total, (outcome.data as unknown[]).length, "one page holds them all");
  return pluck(outcome, "title");
}

/**
 * A refusal's `fields`, keyed by the path inside the filter. Each key is the caller's own
 * argument path (issue #22): under `filter.` on the tools, which take a `filter` argument,
 * and bare on REST, whose filter fields are query parameters (`refused` checks which).
 */
function byPath(failure: Failure): Record<string, string> {
  return Object.fromEntries(
    Object.entries(failure.fields ?? {}).map(([key, reason]) => [
      key.replace(/^filter\./, ""),
      reason,
    ]),
  );
}

async function refused(ctx: CaseContext, filter: Filter): Promise<Record<string, string>> {
  const failure = expectError(await ctx.driver.list("carol", "todos", { filter }), {
    code: "validation_failed",
  });
  const fields = failure.fields ?? {};
  for (const key of Object.keys(fields)) {
    assert.equal(key.startsWith("filter."), ctx.driver.surface === "tools", key);
  }
  return byPath(failure);
}

const titled = (n: number) => Array.from({ length: n }, (_, i) => ({ title: `nope-${i}` }));

/** Two refusals that differ only in the field's name: no oracle for the hidden one. */
function assertSameRefusal(
  hidden: Failure,
  unknown: Failure,
  hiddenName: string,
  unknownName: string,
) {
  const [hiddenFields, unknownFields] = [byPath(hidden), byPath(unknown)];
  assert.ok(Object.keys(hiddenFields).length > 0, "the refusal names a path");
  assert.deepEqual(Object.values(hiddenFields), Object.values(unknownFields), "same reasons");
  assert.deepEqual(
    Object.keys(hiddenFields).map((key) => key.replaceAll(hiddenName, "<field>")),
    Object.keys(unknownFields).map((key) => key.replaceAll(unknownName, "<field>")),
  );
  assert.equal(hidden.detail, unknown.detail, "the detail does not tell them apart");
}

/**
 * The words of a refusal: one answer on every surface (issue #22). The core checks every
 * filter, whichever surface it came through; the tools' schema only says what it takes.
 */
const WORDS = {
  notFilterable: "is not a filterable field",
  badOperator: /^operator \$gt is not allowed here; use one of \$eq, \$ne, \$exists$/,
  notAllowedKey: (operator: string) =>
    `operator ${operator} is not allowed here; combine conditions with $or or $and, or filter on a field`,
  badPaths: ["$and.0.tags", "$or.1.priority", "$or.2.$and.0.completed", "$or.2.$and.1.createdAt"],
} as const;

export const combinatorCases: ContractCase[] = [
  {
    group,
    name: "$or branches take operators and are counted; a top-level $and holds every branch",
    async run(ctx) {
      assert.deepEqual(
        await carolTitles(ctx, { $or: [{ title: "t01" }, { priority: { $gte: 5 } }] }),
        ["t01", "t04", "t09"],
      );
      assert.deepEqual(
        await carolTitles(ctx, { $and: [{ priority: { $lte: 2 } }, { completed: true }] }),
        ["t00", "t06"],
      );
    },
  },
  {
    group,
    name: "two levels: $or with an $and branch, and beside a top-level field",
    smoke: true,
    async run(ctx) {
      const filter = {
        $or: [{ title: "t00" }, { $and: [{ priority: { $gte: 4 } }, { completed: false }] }],
      };
      assert.deepEqual(await carolTitles(ctx, filter), ["t00", "t04", "t08"]);
      assert.deepEqual(await carolTitles(ctx, { ...filter, completed: false }), ["t04", "t08"]);
    },
  },
  {
    group,
    name: "top-level $and with $in lists, an ObjectId, $regex/$options and array items in branches",
    async run(ctx) {
      assert.deepEqual(
        await carolTitles(ctx, {
          $and: [{ $or: [{ title: { $in: ["t00", "t01"] } }] }, { completed: false }],
        }),
        ["t01"],
      );
      assert.deepEqual(
        await carolTitles(ctx, {
          $and: [{ $or: [{ title: { $in: ["t00", "t02"] } }, { priority: 3 }] }],
        }),
        ["t00", "t02", "t07"],
      );
      assert.deepEqual(
        await carolTitles(ctx, {
          $or: [
            { ownerId: ctx.world.accounts.carol.userId, title: "t05" },
            { title: { $regex: "^T1", $options: "i" } },
          ],
        }),
        ["t05", "t10", "t11"],
      );
      assert.deepEqual(
        await carolTitles(ctx, {
          $or: [
            { tags: "even", priority: 5 },
            { tags: { $in: ["odd"] }, priority: 1 },
          ],
        }),
        ["t04", "t05"],
      );
    },
  },
  {
    group,
    name: "dates in branches: a date alone is 00:00 UTC, $exists works inside a branch",
    async run({ driver, world, tag }) {
      const prefix = `dated-or ${tag}`;
      const alice = world.accounts.alice;
      await seedTodo(alice, { title: `${prefix} a`, dueDate: new Date("2030-06-01T00:00:00Z") });
      await seedTodo(alice, { title: `${prefix} b`, dueDate: new Date("2032-06-01T00:00:00Z") });
      await seedTodo(alice, { title: `${prefix} c` });
      const titles = async (filter: Filter) =>
        pluck(
          expectOk(
            await driver.list("alice", "todos", {
              filter: { title: { $regex: `^${prefix} ` }, ...filter },
              sort: "title",
            }),
            "list",
          ),
          "title",
        );
      assert.deepEqual(
        await titles({
          $or: [{ dueDate: { $lt: "2031-01-01" } }, { dueDate: { $exists: false } }],
        }),
        [`${prefix} a`, `${prefix} c`],
      );
      assert.deepEqual(
        await titles({
          $and: [{ dueDate: { $gte: "2030-06-01" } }, { dueDate: { $lt: "2030-06-02" } }],
        }),
        [`${prefix} a`],
      );
    },
  },
  {
    group,
    name: "a third level of $or/$and is refused, naming its path",
    async run(ctx) {
      const fields = await refused(ctx, {
        $or: [{ title: "t00" }, { $and: [{ $or: [{ title: "t01" }] }, { completed: true }] }],
      });
      assert.deepEqual(Object.keys(fields), ["$or.1.$and.0.$or"]);
      assert.match(fields["$or.1.$and.0.$or"], /at most 2 levels/);
    },
  },
  {
    group,
    name: "10 branches are accepted, 11 refused, at the top and one level down",
    async run(ctx) {
      assert.deepEqual(await carolTitles(ctx, { $or: [...titled(9), { title: "t03" }] }), ["t03"]);
      assert.deepEqual(
        await carolTitles(ctx, {
          $and: [...titled(9).map(() => ({ priority: 4 })), { title: "t03" }],
        }),
        ["t03"],
      );
      for (const key of ["$or", "$and"]) {
        const top = await refused(ctx, { [key]: titled(11) });
        assert.match(top[key] ?? "", /1 to 10 filter objects/, JSON.stringify(top));
        const nested = await refused(ctx, { $or: [{ [key]: titled(11) }] });
        assert.match(
          nested[`$or.0.${key}`] ?? "",
          /1 to 10 filter objects/,
          JSON.stringify(nested),
        );
      }
    },
  },
  {
    group,
    name: "a non-list $or, a non-object branch and an empty list or branch are refused, naming it",
    async run(ctx) {
      const shapes: Array<[Filter, string]> = [
        [{ $or: "t00" }, "$or"],
        [{ $and: "title" }, "$and"],
        [{ $or: ["t00"] }, "$or.0"],
        [{ $or: [{ title: "t00" }, "t01"] }, "$or.1"],
        [{ $or: { 150: { title: "t00" } } }, "$or"],
      ];
      // A query string cannot write these: qs drops empty lists and objects, has no null, and
      // reads `$or[0]` as a list index. Only the JSON surfaces can send them.
      if (ctx.driver.surface === "tools") {
        shapes.push(
          [{ $or: [] }, "$or"],
          [{ $or: { 0: { title: "t00" } } }, "$or"],
          [{ $and: [] }, "$and"],
          [{ $or: [{}] }, "$or.0"],
          [{ $or: [{ title: "t00" }, {}] }, "$or.1"],
          [{ $or: [{ title: "t00" }, null] }, "$or.1"],
          [{ $or: [{ title: "t00" }, [{ title: "t01" }]] }, "$or.1"],
        );
      }
      for (const [filter, path] of shapes) {
        const fields = await refused(ctx, filter);
        assert.ok(
          fields[path],
          `${JSON.stringify(filter)} names ${path}: ${JSON.stringify(fields)}`,
        );
      }
    },
  },
  {
    group,
    name: "inside branches the field rules hold, and each bad path is named",
    async run(ctx) {
      const fields = await refused(ctx, {
        $or: [
          { title: "ok" },
          { priority: "high" },
          { $and: [{ completed: { $gt: true } }, { createdAt: "2026-01-01" }] },
        ],
        $and: [{ tags: { $regex: "(unclosed" } }],
      });
      assert.deepEqual(Object.keys(fields).sort(), WORDS.badPaths);
      assert.equal(fields["$or.1.priority"], "must be a number");
      assert.match(fields["$or.2.$and.0.completed"], WORDS.badOperator);
      assert.equal(fields["$or.2.$and.1.createdAt"], WORDS.notFilterable);
      const regex = await refused(ctx, { $and: [{ tags: { $regex: "(unclosed" } }] });
      assert.deepEqual(regex, { "$and.0.tags": "$regex is not a valid regular expression" });
    },
  },
  {
    group,
    name: "a field outside queryFields inside a branch is not filterable",
    async run(ctx) {
      const fields = await refused(ctx, { $or: [{ title: "t00" }, { createdAt: "2026-01-01" }] });
      assert.deepEqual(fields, { "$or.1.createdAt": WORDS.notFilterable });
    },
  },
  {
    group,
    name: "a select:false field inside a branch is refused exactly like an unknown one",
    async run({ driver }) {
      const pin = "PIN-4821-hidden";
      for (const shape of [
        (key: string) => ({ $or: [{ text: "s" }, { [key]: pin }] }),
        (key: string) => ({ $and: [{ $or: [{ [key]: { $exists: true } }] }] }),
      ]) {
        const hidden = expectError(
          await driver.list("alice", "memos", { filter: shape("secret") }),
          {
            code: "validation_failed",
          },
        );
        const unknown = expectError(
          await driver.list("alice", "memos", { filter: shape("nope") }),
          {
            code: "validation_failed",
          },
        );
        assertSameRefusal(hidden, unknown, "secret", "nope");
        assertNotReceived(hidden, pin);
      }
    },
  },
  {
    group,
    name: "internalNote inside a branch: refused like an unknown field on tools, a working filter on REST",
    async run({ driver, world, tag }) {
      const title = `noted-or ${tag}`;
      await seedTodo(world.accounts.alice, { title });
      const shapes = [
        (key: string) => ({ $or: [{ title: "never" }, { title, [key]: HIDDEN_NOTE }] }),
        (key: string) => ({ title, $and: [{ $or: [{ [key]: { $exists: true } }] }] }),
      ];
      for (const shape of shapes) {
        const outcome = await driver.list("alice", "todos", { filter: shape("internalNote") });
        if (driver.surface === "rest") {
          assert.deepEqual(pluck(expectOk(outcome, "list"), "title"), [title]);
          continue;
        }
        const hidden = expectError(outcome, { code: "validation_failed" });
        assertNotReceived(hidden, HIDDEN_NOTE);
        const unknown = expectError(
          await driver.list("alice", "todos", { filter: shape("noSuchField") }),
          { code: "validation_failed" },
        );
        assertSameRefusal(hidden, unknown, "internalNote", "noSuchField");
      }
    },
  },
  {
    group,
    name: "$where, $expr and $function are refused anywhere in a branch, naming their path",
    async run(ctx) {
      for (const operator of ["$where", "$expr", "$function"]) {
        const inBranch = expectError(
          await ctx.driver.list("carol", "todos", {
            filter: { $or: [{ title: "t00" }, { [operator]: "sleep(1000)" }] },
          }),
          { code: "validation_failed" },
        );
        // Named once, by its own path, in fields; the detail does not repeat it.
        assert.deepEqual(
          byPath(inBranch),
          { [`$or.1.${operator}`]: `operator ${operator} is not allowed` },
          operator,
        );
        assert.ok(!inBranch.detail.includes(operator), inBranch.detail);
        const nested = await refused(ctx, { $or: [{ $and: [{ title: { [operator]: "1" } }] }] });
        assert.deepEqual(Object.keys(nested), [`$or.0.$and.0.title.${operator}`], operator);
      }
      const expr = await refused(ctx, { $and: [{ $expr: { $gt: 1 } }] });
      assert.deepEqual(Object.keys(expr), ["$and.0.$expr"]);
    },
  },
  {
    group,
    name: "every other $ key is refused, at the top level and inside a branch",
    async run(ctx) {
      for (const operator of ["$nor", "$not", "$text", "$comment", "$gt", "$elemMatch"]) {
        const expected = WORDS.notAllowedKey(operator);
        const top = await refused(ctx, { [operator]: [{ title: "t00" }] });
        assert.deepEqual(top, { [operator]: expected });
        const inBranch = await refused(ctx, { $or: [{ [operator]: [{ title: "t00" }] }] });
        assert.deepEqual(inBranch, { [`$or.0.${operator}`]: expected });
      }
      const text = await refused(ctx, { $or: [{ $text: { $search: "t00" } }] });
      assert.deepEqual(text, { "$or.0.$text": WORDS.notAllowedKey("$text") });
    },
  },
  {
    group,
    name: "a caller's $or/$and never reaches another owner's todos (OwnerQueryFilter scope)",
    smoke: true,
    async run({ driver, world, tag }) {
      const alice = world.accounts.alice.userId;
      const carol = world.accounts.carol.userId;
      const victim = `scoped ${tag}`;
      await seedTodo(world.accounts.alice, { title: victim, priority: 5, completed: true });
      const total = async (filter: Filter) => {
        const outcome = expectOk(
          await driver.list("carol", "todos", { filter, sort: "title", limit: 5 }),
          "list",
        );
        assert.ok(!pluck(outcome, "title").includes(victim), JSON.stringify(filter));
        return { total: outcome.page?.total, titles: pluck(outcome, "title") };
      };
      const all = CAROL_TODOS.length;
      const completed = CAROL_TODOS.filter((todo) => todo.completed).length;
      const cases: Array<[Filter, number]> = [
        [{ $or: [{ ownerId: alice }, { title: victim }] }, 0],
        [{ $or: [{ ownerId: { $ne: carol } }, { completed: true }] }, completed],
        [{ $or: [{ ownerId: { $exists: true } }] }, all],
        [{ $and: [{ $or: [{ ownerId: alice }, { priority: { $gte: 5 } }] }] }, 2],
        [{ ownerId: alice }, 0],
        [{ $or: [{ title: { $regex: ".*" } }] }, all],
      ];
      for (const [filter, expected] of cases) {
        assert.equal((await total(filter)).total, expected, JSON.stringify(filter));
      }
      // Carol's own todos still match her branches; Alice's never do.
      assert.deepEqual((await total({ $or: [{ ownerId: alice }, { title: "t05" }] })).titles, [
        "t05",
      ]);
    },
  },
  {
    group,
    name: "a caller's $or neither replaces nor widens a scope that is itself an $or",
    async run({ driver, world, tag }) {
      const { alice, bob } = world.accounts;
      const prefix = `sh ${tag}`;
      await seedTodo(alice, { title: `${prefix} alpha`, priority: 1, tags: ["a"] });
      await seedTodo(alice, { title: `${prefix} gamma`, priority: 3, tags: ["public"] });
      await seedTodo(bob, { title: `${prefix} bob-a`, priority: 2 });
      await seedTodo(bob, { title: `${prefix} bob-b`, priority: 4, completed: true });
      const titles = async (filter: Filter) => {
        const outcome = expectOk(
          await driver.list("bob", "shared", { filter, sort: "title" }),
          "list",
        );
        assert.equal(outcome.page?.total, (outcome.data as unknown[]).length);
        return pluck(outcome, "title");
      };
      assert.deepEqual(
        await titles({
          $or: [
            { title: `${prefix} alpha` },
            { title: `${prefix} gamma` },
            { title: `${prefix} bob-a` },
          ],
        }),
        [`${prefix} bob-a`, `${prefix} gamma`],
      );
      assert.deepEqual(
        await titles({ title: { $regex: `^${prefix} ` }, $or: [{ priority: { $gte: 1 } }] }),
        [`${prefix} bob-a`, `${prefix} bob-b`, `${prefix} gamma`],
      );
    },
  },
  {
    group,
    name: "a caller's $or narrows a defaultQueryParams $or instead of replacing it",
    async run({ driver }) {
      const defaults = CAROL_TODOS.filter((todo) => !todo.completed || todo.priority === 1);
      const all = expectOk(await driver.list("carol", "open", { sort: "title" }), "list");
      assert.equal(all.page?.total, defaults.length, `defaults ${JSON.stringify(OPEN_DEFAULTS)}`);
      // t03 is completed with priority 4: outside the defaults, whatever the caller's $or says.
      const narrowed = expectOk(
        await driver.list("carol", "open", {
          filter: { $or: [{ title: "t00" }, { title: "t03" }] },
          sort: "title",
        }),
        "list",
      );
      assert.deepEqual(pluck(narrowed, "title"), ["t00"]);
      assert.equal(narrowed.page?.total, 1);
    },
  },
];
