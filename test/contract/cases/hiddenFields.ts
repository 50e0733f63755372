/**
 * Hidden fields in every position. `internalNote` (mcp.excludeFields on Todo) is REST-only:
 * tools never show it and refuse to write it. `passwordHash` (select: false) appears nowhere,
 * not even inside a populated owner whose populate path asks for it.
 */
import assert from "node:assert/strict";
import type { Driver } from "../drivers/types.js";
import { assertNotReceived, doc, expectError, expectOk } from "../expect.js";
import type { Ok } from "../outcome.js";
import { BCRYPT, HIDDEN_NOTE, seedFood, seedTodo, storedTodo } from "../world.js";
import type { ContractCase } from "./types.js";

const group = "hidden fields";

/** REST shows the server-set note (so it is really there); tools never do. */
function expectNote(driver: Driver, outcome: Ok, docs: Array<Record<string, unknown>>): void {
  assert.ok(docs.length > 0, "the check needs at least one document");
  for (const one of docs) {
    if (driver.surface === "rest") assert.equal(one.internalNote, HIDDEN_NOTE);
    else assert.equal("internalNote" in one, false, JSON.stringify(one));
  }
  if (driver.surface === "tools") assertNotReceived(outcome, HIDDEN_NOTE, "internalNote");
}

export const hiddenFieldCases: ContractCase[] = [
  {
    group,
    name: "internalNote: list output",
    async run({ driver, world, tag }) {
      await seedTodo(world.accounts.alice, { title: `listed ${tag}` });
      const listed = expectOk(
        await driver.list("alice", "todos", { filter: { title: `listed ${tag}` } }),
        "list",
      );
      expectNote(driver, listed, listed.data as Array<Record<string, unknown>>);
    },
  },
  {
    group,
    name: "internalNote: read output",
    smoke: true,
    async run({ driver, world }) {
      const id = await seedTodo(world.accounts.alice);
      const read = expectOk(await driver.read("alice", "todos", id), "read");
      expectNote(driver, read, [doc(read)]);
    },
  },
  {
    group,
    name: "internalNote: create output (the server sets the note)",
    smoke: true,
    async run({ driver, tag }) {
      const created = expectOk(
        await driver.create("alice", "todos", { title: `created ${tag}` }),
        "create",
      );
      expectNote(driver, created, [doc(created)]);
      assert.equal((await storedTodo(String(doc(created).id)))?.internalNote, HIDDEN_NOTE);
    },
  },
  {
    group,
    name: "internalNote: update output",
    async run({ driver, world }) {
      const id = await seedTodo(world.accounts.alice);
      const updated = expectOk(
        await driver.update("alice", "todos", id, { completed: true }),
        "update",
      );
      expectNote(driver, updated, [doc(updated)]);
    },
  },
  {
    group,
    name: "populated owner: name only, never passwordHash (even when the populate path asks)",
    async run({ driver, world }) {
      const { alice } = world.accounts;
      const todo = expectOk(await driver.read("alice", "todos", await seedTodo(alice)), "read");
      const food = expectOk(await driver.read("bob", "foods", await seedFood(alice)), "read");
      for (const outcome of [todo, food]) {
        assert.deepEqual(doc(outcome).ownerId, { id: alice.userId, name: "alice" });
        assertNotReceived(outcome, "passwordHash", BCRYPT);
      }
    },
  },
  {
    group,
    name: "writing internalNote: refused with validation_failed on tools, accepted on REST",
    smoke: true,
    async run({ driver, world, tag }) {
      const create = await driver.create("alice", "todos", {
        title: `sneaky ${tag}`,
        internalNote: "written by the client",
      });
      const id = await seedTodo(world.accounts.alice);
      const update = await driver.update("alice", "todos", id, {
        internalNote: "written by the client",
      });
      if (driver.surface === "rest") {
        assert.equal(doc(expectOk(create, "create")).internalNote, "written by the client");
        assert.equal(doc(expectOk(update, "update")).internalNote, "written by the client");
        return;
      }
      expectError(create, { code: "validation_failed", fields: ["internalNote"] });
      expectError(update, { code: "validation_failed", fields: ["internalNote"] });
      assert.equal((await storedTodo(id))?.internalNote, HIDDEN_NOTE, "nothing was written");
    },
  },
];
