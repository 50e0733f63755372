/**
 * A document of another model leaves as that model's own routers show it: populated with no
 * field list, or inside an action's or a custom tool's plain-object result. Todo's
 * `mcp.excludeFields` (internalNote) holds there too, and the action's own documents inside a
 * plain object are populated and presented as a read's are.
 */
import assert from "node:assert/strict";
import type { Driver } from "../drivers/types.js";
import { assertNotReceived, doc, expectOk } from "../expect.js";
import type { Outcome } from "../outcome.js";
import { HIDDEN_NOTE, seedTodo } from "../world.js";
import { seedFullProject } from "./projectFixtures.js";
import type { ContractCase } from "./types.js";

const group = "foreign documents";

/** REST shows the note (so it is really there); tools never send it. */
function expectTodoNote(driver: Driver, outcome: Outcome, todo: unknown): void {
  assert.ok(todo && typeof todo === "object", `a todo came back: ${JSON.stringify(todo)}`);
  const note = (todo as Record<string, unknown>).internalNote;
  if (driver.surface === "rest") assert.equal(note, HIDDEN_NOTE);
  else {
    assert.equal(note, undefined, JSON.stringify(todo));
    assertNotReceived(outcome, HIDDEN_NOTE);
  }
}

export const foreignDocumentCases: ContractCase[] = [
  {
    group,
    name: "a populated ref with no field list leaves as its model's routers show it",
    smoke: true,
    async run({ driver, world, tag }) {
      const pinned = await seedTodo(world.accounts.alice, { title: `pinned ${tag}` });
      const created = expectOk(
        await driver.create("alice", "boards", { name: `board ${tag}`, pinned }),
        "create",
      );
      expectTodoNote(driver, created, doc(created).pinned);
      const read = expectOk(await driver.read("alice", "boards", String(doc(created).id)), "read");
      const todo = doc(read).pinned as Record<string, unknown>;
      assert.equal(todo.title, `pinned ${tag}`, "the ref is populated");
      expectTodoNote(driver, read, todo);
    },
  },
  {
    group,
    name: "a custom tool's plain-object result shows another model's document as its routers do",
    async run({ driver, world, tag }) {
      await seedTodo(world.accounts.alice, { title: `peek ${tag}` });
      const outcome = expectOk(
        await driver.tool("alice", "todo_peek", { title: `peek ${tag}` }),
        "read",
      );
      const todo = (outcome.data as { todo?: Record<string, unknown> }).todo;
      assert.equal(todo?.title, `peek ${tag}`);
      expectTodoNote(driver, outcome, todo);
    },
  },
  {
    group,
    name: "an action's own documents inside a plain object answer what a read answers",
    async run({ driver, world, tag: run }) {
      // A name of its own: the other cases seed `project ${run}` too.
      const tag = `${run} bundle`;
      const { alice, bob } = world.accounts;
      const id = await seedFullProject(bob, alice, tag);
      const outcome = expectOk(
        await driver.action("bob", "projects", "bundle", undefined, { name: `project ${tag}` }),
        "read",
      );
      const result = outcome.data as { count: number; project: unknown; all: unknown[] };
      const read = doc(expectOk(await driver.read("bob", "projects", id), "read"));
      assert.equal(result.count, 1);
      assert.deepEqual(result.project, read, "nested: populated and presented like a read");
      assert.deepEqual(result.all, [read], "in an array too");
    },
  },
];
