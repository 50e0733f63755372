/**
 * Issue #36 item 1 on every surface: a record's `version` in reads and lists, a read sent back
 * with it is a conditional update, and a stale one is refused (`conflict`; REST's If-Match on a
 * delete: 412) carrying the record as it is now, nothing written. A person's change between
 * the agent's read and its update survives.
 */
import assert from "node:assert/strict";
import request from "supertest";
import { assertNotReceived, doc, expectError, expectOk } from "../expect.js";
import { type Account, HIDDEN_NOTE, seedTodo, storedTodo, type World } from "../world.js";
import type { ContractCase } from "./types.js";

const group = "versions";

/** A person changes the todo in the app (REST, without a version), after the agent's read. */
async function personChanges(world: World, owner: Account, id: string, body: object) {
  await request(world.express)
    .patch(`/todos/${id}`)
    .set("Authorization", `Bearer ${owner.token}`)
    .send(body)
    .expect(200);
}

export const versionCases: ContractCase[] = [
  {
    group,
    name: "lost update: the agent's stale version is a conflict carrying the person's change",
    smoke: true,
    async run({ driver, world, tag }) {
      const alice = world.accounts.alice;
      const id = await seedTodo(alice, { title: `milk ${tag}` });
      const read = doc(expectOk(await driver.read("alice", "todos", id), "read"));
      assert.equal(read.version, 0);
      await personChanges(world, alice, id, { priority: 5 });
      // The agent edits what it read and sends it back whole, version included.
      const refused = expectError(
        await driver.update("alice", "todos", id, { ...read, title: `oat milk ${tag}` }),
        { code: "conflict" },
      );
      assert.equal(refused.version, 1);
      assert.equal(refused.current?.priority, 5, "the refusal carries the person's change");
      assert.equal(refused.current?.title, `milk ${tag}`);
      if (driver.surface === "tools") assertNotReceived(refused, HIDDEN_NOTE);
      const stored = await storedTodo(id);
      assert.deepEqual([stored?.title, stored?.priority], [`milk ${tag}`, 5]);
      // Merged into the record as it is now and sent with its version, it applies.
      const merged = doc(
        expectOk(
          await driver.update("alice", "todos", id, {
            ...refused.current,
            title: `oat milk ${tag}`,
          }),
          "update",
        ),
      );
      assert.deepEqual([merged.title, merged.priority, merged.version], [`oat milk ${tag}`, 5, 2]);
    },
  },
  {
    group,
    name: "without a version an update applies as before, over the person's change",
    async run({ driver, world, tag }) {
      const alice = world.accounts.alice;
      const id = await seedTodo(alice, { title: `bread ${tag}` });
      expectOk(await driver.read("alice", "todos", id), "read");
      await personChanges(world, alice, id, { priority: 4 });
      const written = doc(
        expectOk(await driver.update("alice", "todos", id, { title: `rye ${tag}` }), "update"),
      );
      assert.deepEqual([written.title, written.priority, written.version], [`rye ${tag}`, 4, 2]);
    },
  },
  {
    group,
    name: "read, edit, update: the round trip is conditional with no extra step",
    async run({ driver, world, tag }) {
      const id = await seedTodo(world.accounts.alice, { title: `trip ${tag}` });
      const listed = expectOk(
        await driver.list("alice", "todos", { filter: { title: `trip ${tag}` } }),
        "list",
      );
      assert.equal((listed.data as Array<Record<string, unknown>>)[0]?.version, 0);
      const read = doc(expectOk(await driver.read("alice", "todos", id), "read"));
      const first = doc(
        expectOk(await driver.update("alice", "todos", id, { ...read, completed: true }), "update"),
      );
      assert.equal(first.version, 1);
      // The same read sent again is now stale: the first update moved the version.
      expectError(await driver.update("alice", "todos", id, { ...read, priority: 2 }), {
        code: "conflict",
      });
      assert.equal((await storedTodo(id))?.priority, undefined);
    },
  },
  {
    group,
    name: "a delete with a stale version is refused and the record stays; the current one deletes",
    async run({ driver, world, tag }) {
      const alice = world.accounts.alice;
      const id = await seedTodo(alice, { title: `gone ${tag}` });
      await personChanges(world, alice, id, { completed: true });
      const refused = expectError(await driver.delete("alice", "todos", id, 0), {
        code: driver.surface === "rest" ? "precondition_failed" : "conflict",
      });
      assert.equal(refused.current?.completed, true);
      assert.ok(await storedTodo(id), "nothing was deleted");
      expectOk(await driver.delete("alice", "todos", id, 1), "delete");
      assert.equal((await storedTodo(id))?.deleted, true, "soft-deleted");
    },
  },
];
