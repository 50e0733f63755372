/** Who may do what: BOLA is a 404, read-but-not-write a 403, anonymous a 401, disabled a 405. */
import assert from "node:assert/strict";
import { assertNotReceived, doc, expectAbsent, expectError, expectOk, pluck } from "../expect.js";
import { MISSING_ID, seedFood, seedTodo, storedFood, storedTodo } from "../world.js";
import type { ContractCase } from "./types.js";

const group = "permissions";

export const permissionCases: ContractCase[] = [
  {
    group,
    name: "user B reading user A's todo gets not_found, exactly like a missing id",
    smoke: true,
    async run({ driver, world }) {
      const id = await seedTodo(world.accounts.alice, { title: "alice's secret plan" });
      const theirs = expectError(await driver.read("bob", "todos", id), { code: "not_found" });
      assertNotReceived(theirs, "alice's secret plan");
      const missing = expectError(await driver.read("bob", "todos", MISSING_ID), {
        code: "not_found",
      });
      // No oracle: the refusal says nothing the missing id's answer does not.
      assert.equal(
        theirs.detail.replaceAll(id, "<id>"),
        missing.detail.replaceAll(MISSING_ID, "<id>"),
      );
      // The owner still reads it (the 404 is about the caller, not the document).
      assert.equal(
        doc(expectOk(await driver.read("alice", "todos", id), "read")).title,
        "alice's secret plan",
      );
    },
  },
  {
    group,
    name: "user B updating user A's todo gets not_found and changes nothing",
    smoke: true,
    async run({ driver, world }) {
      const id = await seedTodo(world.accounts.alice, { title: "alice's title" });
      const refused = expectError(await driver.update("bob", "todos", id, { title: "pwned" }), {
        code: "not_found",
      });
      assertNotReceived(refused, "alice's title");
      assert.equal((await storedTodo(id))?.title, "alice's title");
    },
  },
  {
    group,
    name: "user B deleting user A's todo gets not_found and deletes nothing",
    async run({ driver, world }) {
      const id = await seedTodo(world.accounts.alice);
      expectError(await driver.delete("bob", "todos", id), { code: "not_found" });
      assert.equal((await storedTodo(id))?.deleted, false);
    },
  },
  {
    group,
    name: "user B's list never contains user A's todos, even filtered on A's ownerId",
    async run({ driver, world }) {
      await seedTodo(world.accounts.alice);
      const scoped = expectOk(
        await driver.list("bob", "todos", { filter: { ownerId: world.accounts.alice.userId } }),
        "list",
      );
      assert.equal(scoped.page?.total, 0);
      assert.deepEqual(scoped.data, []);
      const own = expectOk(await driver.list("alice", "todos", { limit: 5 }), "list");
      assert.ok((own.page?.total ?? 0) >= 1, "alice sees her own todos");
    },
  },
  {
    group,
    name: "a caller who may read but not update (Food: IsAuthenticated / IsOwner) gets forbidden",
    smoke: true,
    async run({ driver, world }) {
      const id = await seedFood(world.accounts.alice, { calories: 10 });
      expectOk(await driver.read("bob", "foods", id), "read");
      expectError(await driver.update("bob", "foods", id, { calories: 9999 }), {
        code: "forbidden",
      });
      assert.equal((await storedFood(id))?.calories, 10);
      // The owner may.
      const updated = expectOk(
        await driver.update("alice", "foods", id, { calories: 11 }),
        "update",
      );
      assert.equal(doc(updated).calories, 11);
    },
  },
  {
    group,
    name: "anonymous callers get unauthenticated for list, read and create",
    smoke: true,
    async run({ driver, world }) {
      const id = await seedTodo(world.accounts.alice, { title: "not for strangers" });
      for (const outcome of [
        await driver.list("anon", "todos"),
        await driver.read("anon", "todos", id),
        await driver.create("anon", "todos", { title: "anonymous" }),
      ]) {
        expectError(outcome, { code: "unauthenticated" });
        assertNotReceived(outcome, "not for strangers");
      }
    },
  },
  {
    group,
    name: "a disabled method (Food delete: []) is method_not_allowed on REST and has no tool",
    async run({ driver, world }) {
      const id = await seedFood(world.accounts.alice);
      const outcome = await driver.delete("alice", "foods", id);
      if (driver.surface === "rest") expectError(outcome, { code: "method_not_allowed" });
      else expectAbsent(outcome);
      assert.ok(await storedFood(id), "the food still exists");
      // The other methods of the same model are there (the absence is specific).
      expectOk(await driver.read("alice", "foods", id), "read");
    },
  },
  {
    group,
    name: "a pre-hook returning null refuses the write with forbidden",
    async run({ driver, world, tag }) {
      expectError(await driver.create("alice", "todos", { title: "forbidden by hook" }), {
        code: "forbidden",
      });
      const id = await seedTodo(world.accounts.alice, { title: `hooked ${tag}` });
      expectError(await driver.update("alice", "todos", id, { title: "forbidden by hook" }), {
        code: "forbidden",
      });
      assert.equal((await storedTodo(id))?.title, `hooked ${tag}`);
    },
  },
  {
    group,
    name: "the owner can read, update and delete; a deleted todo is then not_found",
    async run({ driver, world, tag }) {
      const id = await seedTodo(world.accounts.alice, { title: `mine ${tag}` });
      const updated = expectOk(
        await driver.update("alice", "todos", id, { completed: true }),
        "update",
      );
      assert.equal(doc(updated).completed, true);
      expectOk(await driver.delete("alice", "todos", id), "delete");
      expectError(await driver.read("alice", "todos", id), { code: "not_found" });
      const listed = expectOk(
        await driver.list("alice", "todos", { filter: { title: `mine ${tag}` } }),
        "list",
      );
      assert.deepEqual(pluck(listed, "id"), [], "soft-deleted todos leave lists");
    },
  },
];
