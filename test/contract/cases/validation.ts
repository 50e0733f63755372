/** Bodies the write schema refuses, with validation_failed naming the field; nothing is written. */
import assert from "node:assert/strict";
import { Todo } from "../../helpers/models.js";
import { expectError } from "../expect.js";
import { Memo, MISSING_ID, seedTodo, storedTodo } from "../world.js";
import type { CaseContext, ContractCase } from "./types.js";

const group = "validation";

/** Alice's todo count does not move across `act`. */
async function writesNothing(ctx: CaseContext, act: () => Promise<void>): Promise<void> {
  const owner = ctx.world.accounts.alice.userId;
  const before = await Todo.countDocuments({ ownerId: owner });
  await act();
  assert.equal(await Todo.countDocuments({ ownerId: owner }), before, "nothing was written");
}

export const validationCases: ContractCase[] = [
  {
    group,
    name: "a missing required field",
    smoke: true,
    run: (ctx) =>
      writesNothing(ctx, async () => {
        expectError(await ctx.driver.create("alice", "todos", { priority: 2 }), {
          code: "validation_failed",
          fields: ["title"],
        });
      }),
  },
  {
    group,
    name: "a wrong type, and a number out of range",
    smoke: true,
    run: (ctx) =>
      writesNothing(ctx, async () => {
        expectError(await ctx.driver.create("alice", "todos", { title: 42 }), {
          code: "validation_failed",
          fields: ["title"],
        });
        expectError(await ctx.driver.create("alice", "todos", { title: "x", priority: "high" }), {
          code: "validation_failed",
          fields: ["priority"],
        });
        expectError(await ctx.driver.create("alice", "todos", { title: "x", priority: 9 }), {
          code: "validation_failed",
          fields: ["priority"],
        });
      }),
  },
  {
    group,
    name: "an unknown field, a read-only one (ownerId) and a system one (_id)",
    run: (ctx) =>
      writesNothing(ctx, async () => {
        expectError(await ctx.driver.create("alice", "todos", { title: "x", nosuch: 1 }), {
          code: "validation_failed",
          fields: ["nosuch"],
        });
        expectError(
          await ctx.driver.create("alice", "todos", {
            title: "x",
            ownerId: ctx.world.accounts.bob.userId,
          }),
          { code: "validation_failed", fields: ["ownerId"] },
        );
        expectError(await ctx.driver.create("alice", "todos", { title: "x", _id: MISSING_ID }), {
          code: "validation_failed",
          fields: ["_id"],
        });
      }),
  },
  {
    group,
    name: "a value outside an enum",
    async run({ driver, tag }) {
      const before = await Memo.countDocuments();
      expectError(await driver.create("alice", "memos", { text: `moody ${tag}`, mood: "angry" }), {
        code: "validation_failed",
        fields: ["mood"],
      });
      assert.equal(await Memo.countDocuments(), before, "nothing was written");
    },
  },
  {
    group,
    name: "an update with a wrong type changes nothing",
    async run({ driver, world }) {
      const id = await seedTodo(world.accounts.alice, { completed: false });
      expectError(await driver.update("alice", "todos", id, { completed: "yes" }), {
        code: "validation_failed",
        fields: ["completed"],
      });
      assert.equal((await storedTodo(id))?.completed, false);
    },
  },
];
