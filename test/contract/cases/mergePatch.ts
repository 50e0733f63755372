/**
 * Issue #12: an update is a JSON Merge Patch (RFC 7396) on every surface, subdocuments are
 * written with the `id` reads show, and a date alone (`2031-01-01`, 00:00 UTC) is accepted
 * wherever a date is. Refused patches write nothing.
 */
import assert from "node:assert/strict";
import mongoose from "mongoose";
import { Todo } from "../../helpers/models.js";
import { doc, expectError, expectOk, pluck } from "../expect.js";
import { type Account, Gizmo, seedGizmo, seedTodo, storedTodo, UPDATE_HOOKS } from "../world.js";
import type { CaseContext, ContractCase } from "./types.js";

const group = "merge patch";

type Item = { id?: string; text?: string; done?: boolean };

/** A todo whose fields every case can change: a reminder, a checklist, tags, a priority. */
function seedFull(owner: Account, tag: string): Promise<string> {
  return seedTodo(owner, {
    title: `patch ${tag}`,
    priority: 3,
    dueDate: new Date("2031-05-06T07:08:09.000Z"),
    tags: ["x", "y"],
    reminder: { at: new Date("2031-05-01T09:00:00.000Z"), channel: "email" },
    checklist: [{ text: "first" }, { text: "second", done: true }],
  });
}

/** The stored document, as plain JSON (ids as hex, dates as ISO strings). */
async function stored(id: string): Promise<Record<string, unknown>> {
  return JSON.parse(JSON.stringify(await storedTodo(id)));
}

/** A refused patch leaves the stored document exactly as it was. */
async function refusedUnchanged(
  ctx: CaseContext,
  id: string,
  body: Record<string, unknown>,
  fields: string[],
): Promise<void> {
  const before = await stored(id);
  expectError(await ctx.driver.update("alice", "todos", id, body), {
    code: "validation_failed",
    fields,
  });
  assert.deepEqual(await stored(id), before, "nothing was written");
}

export const mergePatchCases: ContractCase[] = [
  {
    group,
    name: "nested objects merge: a patched field changes, its siblings stay",
    smoke: true,
    async run({ driver, world, tag }) {
      const id = await seedFull(world.accounts.alice, tag);
      const updated = doc(
        expectOk(
          await driver.update("alice", "todos", id, { reminder: { channel: "push" } }),
          "update",
        ),
      );
      assert.deepEqual(updated.reminder, { at: "2031-05-01T09:00:00.000Z", channel: "push" });
      assert.deepEqual((await stored(id)).reminder, {
        at: "2031-05-01T09:00:00.000Z",
        channel: "push",
      });
    },
  },
  {
    group,
    name: "null clears an optional field, at the top and inside a nested object",
    async run({ driver, world, tag }) {
      const id = await seedFull(world.accounts.alice, tag);
      const updated = doc(
        expectOk(
          await driver.update("alice", "todos", id, {
            priority: null,
            dueDate: null,
            reminder: { channel: null },
          }),
          "update",
        ),
      );
      assert.equal(updated.priority, undefined);
      assert.equal(updated.dueDate, undefined);
      assert.deepEqual(updated.reminder, { at: "2031-05-01T09:00:00.000Z" });
      const after = await stored(id);
      assert.equal("priority" in after, false, "priority is removed, not stored as null");
      assert.equal("dueDate" in after, false);
      assert.deepEqual(after.reminder, { at: "2031-05-01T09:00:00.000Z" });
      assert.equal(after.title, `patch ${tag}`, "fields the patch does not name stay");
    },
  },
  {
    group,
    name: "a required field set to null is refused, naming it; nothing is written",
    smoke: true,
    async run(ctx) {
      const id = await seedFull(ctx.world.accounts.alice, ctx.tag);
      await refusedUnchanged(ctx, id, { title: null, priority: 1 }, ["title"]);
      const refused = expectError(await ctx.driver.update("alice", "todos", id, { title: null }), {
        code: "validation_failed",
      });
      assert.equal(refused.fields?.title, "is required");
    },
  },
  {
    group,
    name: "arrays are replaced whole; subdocuments keep the id they are read with",
    async run({ driver, world, tag }) {
      const id = await seedFull(world.accounts.alice, tag);
      const read = doc(expectOk(await driver.read("alice", "todos", id), "read"));
      const [first, second] = read.checklist as Item[];
      assert.match(String(first.id), /^[0-9a-f]{24}$/, "subdocuments are read with `id`");
      assert.equal("_id" in first, false);
      const updated = doc(
        expectOk(
          await driver.update("alice", "todos", id, {
            checklist: [{ ...first, done: true }, { text: "third" }],
            tags: ["z"],
          }),
          "update",
        ),
      );
      const items = updated.checklist as Item[];
      assert.equal(items.length, 2, "the array is the one sent, not a merge");
      assert.deepEqual(items[0], { ...first, done: true }, "an item sent with its id keeps it");
      assert.equal(items[1].text, "third");
      assert.equal(items[1].done, false);
      assert.match(String(items[1].id), /^[0-9a-f]{24}$/);
      assert.ok(!items.some((item) => item.id === second.id), "the item left out is gone");
      assert.deepEqual(updated.tags, ["z"]);
      const after = await stored(id);
      assert.deepEqual(
        (after.checklist as Array<{ _id: string }>).map((item) => item._id),
        [first.id, items[1].id],
      );
    },
  },
  {
    group,
    name: "array items are whole values: a missing required field or an `_id` is refused",
    async run(ctx) {
      const id = await seedFull(ctx.world.accounts.alice, ctx.tag);
      await refusedUnchanged(ctx, id, { checklist: [{ done: true }] }, ["checklist.0.text"]);
      await refusedUnchanged(
        ctx,
        id,
        { checklist: [{ _id: "0123456789abcdef01234567", text: "a" }] },
        ["checklist.0._id"],
      );
      await refusedUnchanged(ctx, id, { checklist: [{ text: null }] }, ["checklist.0.text"]);
    },
  },
  {
    group,
    name: "a date alone means 00:00 UTC in bodies and filters; an impossible date is refused",
    smoke: true,
    async run(ctx) {
      const { driver, tag } = ctx;
      const created = doc(
        expectOk(
          await driver.create("alice", "todos", {
            title: `dated ${tag}`,
            dueDate: "2031-01-01",
            reminder: { at: "2031-01-02" },
          }),
          "create",
        ),
      );
      assert.equal(created.dueDate, "2031-01-01T00:00:00.000Z");
      assert.deepEqual(created.reminder, { at: "2031-01-02T00:00:00.000Z" });
      const id = String(created.id);
      const updated = doc(
        expectOk(await driver.update("alice", "todos", id, { dueDate: "2031-03-04" }), "update"),
      );
      assert.equal(updated.dueDate, "2031-03-04T00:00:00.000Z");
      const listed = expectOk(
        await driver.list("alice", "todos", {
          filter: { title: `dated ${tag}`, dueDate: { $gte: "2031-03-04", $lt: "2031-03-05" } },
        }),
        "list",
      );
      assert.deepEqual(pluck(listed, "id"), [id]);
      await refusedUnchanged(ctx, id, { dueDate: "2031-02-30" }, ["dueDate"]);
      await refusedUnchanged(ctx, id, { dueDate: "next tuesday" }, ["dueDate"]);
    },
  },
  {
    group,
    name: "a read written back (its writable fields) succeeds and changes nothing",
    smoke: true,
    async run({ driver, world, tag }) {
      const id = await seedFull(world.accounts.alice, tag);
      const read = doc(expectOk(await driver.read("alice", "todos", id), "read"));
      const before = await stored(id);
      const { title, completed, priority, dueDate, tags, reminder, checklist } = read;
      expectOk(
        await driver.update("alice", "todos", id, {
          title,
          completed,
          priority,
          dueDate,
          tags,
          reminder,
          checklist,
        }),
        "update",
      );
      assert.deepEqual(await stored(id), before, "not even updatedAt or __v moved");
    },
  },
  {
    group,
    name: "preUpdate receives the patch (subdocument ids as _id), postUpdate the previous document",
    async run({ driver, world, tag }) {
      const id = await seedTodo(world.accounts.alice, {
        title: `hooked ${tag}`,
        checklist: [{ text: "a" }],
      });
      const read = doc(expectOk(await driver.read("alice", "todos", id), "read"));
      const [item] = read.checklist as Item[];
      UPDATE_HOOKS.length = 0;
      expectOk(
        await driver.update("alice", "todos", id, {
          title: `hooked again ${tag}`,
          checklist: [{ id: item.id, text: "b" }],
        }),
        "update",
      );
      assert.deepEqual(
        UPDATE_HOOKS.map((call) => call.hook),
        ["preUpdate", "postUpdate"],
      );
      assert.deepEqual(UPDATE_HOOKS[0].body, {
        title: `hooked again ${tag}`,
        checklist: [{ _id: item.id, text: "b" }],
      });
      assert.equal(UPDATE_HOOKS[1].prev?.title, `hooked ${tag}`);
    },
  },
  {
    group,
    name: "a patch into an object stored as null sets it whole, without the patch's nulls",
    async run({ driver, world, tag }) {
      const id = await seedTodo(world.accounts.alice, { title: `legacy ${tag}` });
      // Data written by other code may hold null where this API would have removed the field.
      await Todo.collection.updateOne(
        { _id: new mongoose.Types.ObjectId(id) },
        { $set: { reminder: null } },
      );
      const updated = doc(
        expectOk(
          await driver.update("alice", "todos", id, { reminder: { channel: "push", at: null } }),
          "update",
        ),
      );
      assert.deepEqual(updated.reminder, { channel: "push" });
      assert.deepEqual((await stored(id)).reminder, { channel: "push" });
    },
  },
  {
    group,
    name: "maps merge by key (null removes one); Mixed values merge as JSON",
    async run({ driver, world }) {
      const id = await seedGizmo(world.accounts.alice, {
        scores: { a: 1, b: 2 },
        extra: { keep: 1, nested: { x: 1, y: 2 } },
      });
      const updated = doc(
        expectOk(
          await driver.update("alice", "gizmos", id, {
            scores: { a: null, c: 3 },
            extra: { nested: { y: null, z: [1, 2] }, added: "s" },
          }),
          "update",
        ),
      );
      assert.deepEqual(updated.scores, { b: 2, c: 3 });
      assert.deepEqual(updated.extra, { keep: 1, nested: { x: 1, z: [1, 2] }, added: "s" });
    },
  },
  {
    group,
    name: "a single nested subdocument merges and keeps its id; null removes it",
    async run({ driver, world }) {
      const id = await seedGizmo(world.accounts.alice, { part: { label: "bolt", size: 3 } });
      const read = doc(expectOk(await driver.read("alice", "gizmos", id), "read"));
      const part = read.part as { id: string };
      assert.match(String(part.id), /^[0-9a-f]{24}$/);
      const merged = doc(
        expectOk(await driver.update("alice", "gizmos", id, { part: { size: 4 } }), "update"),
      );
      assert.deepEqual(merged.part, { id: part.id, label: "bolt", size: 4 });
      // Written back as read, id included: accepted, and nothing changes.
      const before = JSON.stringify(await Gizmo.findById(id).lean());
      expectOk(await driver.update("alice", "gizmos", id, { part: merged.part }), "update");
      assert.equal(JSON.stringify(await Gizmo.findById(id).lean()), before);
      const cleared = doc(
        expectOk(await driver.update("alice", "gizmos", id, { part: null }), "update"),
      );
      assert.equal(cleared.part, undefined);
      assert.equal("part" in ((await Gizmo.findById(id).lean()) ?? {}), false);
    },
  },
  {
    group,
    name: "null on a required field with a default stores the default; without a default it is refused",
    async run({ driver, world }) {
      const id = await seedGizmo(world.accounts.alice, {
        name: "s",
        spec: { code: "B", note: "n" },
      });
      const refused = expectError(
        await driver.update("alice", "gizmos", id, { name: null, spec: { note: "m" } }),
        { code: "validation_failed" },
      );
      assert.deepEqual(refused.fields, { name: "is required" });
      const code = doc(
        expectOk(await driver.update("alice", "gizmos", id, { spec: { code: null } }), "update"),
      );
      assert.deepEqual(code.spec, { code: "A", note: "n" }, "the default is stored");
      assert.equal((await Gizmo.findById(id).lean())?.spec?.code, "A");
      const note = doc(
        expectOk(await driver.update("alice", "gizmos", id, { spec: { note: null } }), "update"),
      );
      assert.deepEqual(note.spec, { code: "A" });
      const cleared = doc(
        expectOk(await driver.update("alice", "gizmos", id, { spec: null }), "update"),
      );
      assert.deepEqual(cleared.spec, { code: "A" }, "the object keeps its fields' defaults");
      assert.equal(note.name, "s", "the refused patch wrote nothing");
    },
  },
];
