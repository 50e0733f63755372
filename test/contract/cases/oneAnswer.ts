/**
 * Issue #22 items 4 and 5: one answer per case on every surface. A malformed id is the same
 * 404 as a missing one (an unreadable document is 404); a refusal names each of the caller's
 * own argument paths once (array items by index, filter fields under `filter.` where the
 * caller sent a `filter` argument), with no generic line beside a specific one and no
 * sentence said twice; a replaced array's items state and keep their required fields.
 */
import assert from "node:assert/strict";
import { expectError } from "../expect.js";
import type { Failure } from "../outcome.js";
import { seedTodo, storedTodo } from "../world.js";
import type { CaseContext, ContractCase } from "./types.js";

const group = "one answer";

/** The detail never restates what `fields` says: each reason is read once. */
function saidOnce(failure: Failure): void {
  for (const [path, reason] of Object.entries(failure.fields ?? {})) {
    assert.ok(!failure.detail.includes(reason), `detail repeats ${path}: ${failure.detail}`);
  }
}

async function refusedUpdate(
  ctx: CaseContext,
  body: Record<string, unknown>,
): Promise<Record<string, string>> {
  const id = await seedTodo(ctx.world.accounts.alice, {
    reminder: { channel: "email" },
    checklist: [{ text: "first" }],
  });
  const before = JSON.stringify(await storedTodo(id));
  const failure = expectError(await ctx.driver.update("alice", "todos", id, body), {
    code: "validation_failed",
  });
  assert.equal(JSON.stringify(await storedTodo(id)), before, "nothing was written");
  saidOnce(failure);
  return failure.fields ?? {};
}

export const oneAnswerCases: ContractCase[] = [
  {
    group,
    name: "a malformed id is the 404 of a missing one, on read, update and delete",
    smoke: true,
    async run({ driver }) {
      for (const id of ["not-an-id", "0123", "zzzzzzzzzzzzzzzzzzzzzzzz"]) {
        expectError(await driver.read("alice", "todos", id), { code: "not_found" });
        expectError(await driver.update("alice", "todos", id, { title: "x" }), {
          code: "not_found",
        });
        expectError(await driver.delete("alice", "todos", id), { code: "not_found" });
      }
    },
  },
  {
    group,
    name: "an array item missing a required field names its index, once",
    async run(ctx) {
      const fields = await refusedUpdate(ctx, { checklist: [{ text: "kept" }, { done: true }] });
      assert.deepEqual(fields, { "checklist.1.text": "is required" });
    },
  },
  {
    group,
    name: "a bad nested value names its own path, with no noise entry for its parent",
    async run(ctx) {
      const fields = await refusedUpdate(ctx, { reminder: { channel: "fax" } });
      assert.deepEqual(fields, { "reminder.channel": "must be one of: email, push" });
    },
  },
  {
    group,
    name: "an unknown field is named once, and its sentence is not repeated",
    async run(ctx) {
      const fields = await refusedUpdate(ctx, { nosuch: 1, title: 5 });
      assert.deepEqual(fields, { nosuch: "is not an allowed field", title: "must be a string" });
    },
  },
  {
    group,
    name: "filter refusals name the caller's argument path: filter.x on the tools, x on REST",
    async run({ driver }) {
      const failure = expectError(
        await driver.list("alice", "todos", {
          filter: { reminder: { channel: "fax" }, priority: { $gt: "high" }, nosuch: 1 },
        }),
        { code: "validation_failed" },
      );
      const prefix = driver.surface === "tools" ? "filter." : "";
      saidOnce(failure);
      assert.deepEqual(Object.keys(failure.fields ?? {}).sort(), [
        `${prefix}nosuch`,
        `${prefix}priority`,
        `${prefix}reminder`,
      ]);
    },
  },
];
