/**
 * Issue #22.2, populated reads go back: where a ref is expected (create and update, top-level,
 * in arrays, inside subdocuments), an object carrying `id` or `_id` is taken as that id and the
 * rest of it ignored, so a read (populated or not) written back succeeds and changes nothing.
 */
import assert from "node:assert/strict";
import mongoose from "mongoose";
import { doc, expectError, expectOk } from "../expect.js";
import { seedTodo, storedProject, storedTodo } from "../world.js";
import { asBody, seedFullProject, storedProjectJson } from "./projectFixtures.js";
import type { ContractCase } from "./types.js";

const group = "populated refs";

const hex = (value: unknown) => String(value);

interface StoredRefs {
  lead?: unknown;
  reviewers: unknown[];
  members: Array<{ user?: unknown }>;
}

/** A project's refs as stored (ObjectIds, not strings or objects). */
async function storedRefs(id: string): Promise<StoredRefs> {
  const kept = (await storedProject(id)) ?? {};
  return {
    lead: kept.lead,
    reviewers: (kept.reviewers as unknown[] | undefined) ?? [],
    members: (kept.members as StoredRefs["members"] | undefined) ?? [],
  };
}

export const populatedRefCases: ContractCase[] = [
  {
    group,
    name: "a populated read sent back to update succeeds and changes nothing",
    smoke: true,
    async run({ driver, world, tag }) {
      const { alice, bob } = world.accounts;
      const id = await seedFullProject(bob, alice, tag);
      const before = await storedProjectJson(id);
      const read = doc(expectOk(await driver.read("bob", "projects", id), "read"));
      assert.equal((read.lead as { id?: string }).id, alice.userId, "lead is populated");
      const written = doc(
        expectOk(await driver.update("bob", "projects", id, asBody(read)), "update"),
      );
      assert.deepEqual(await storedProjectJson(id), before, "the database is unchanged");
      assert.deepEqual(written, read, "the update answers what the read showed");
      assert.deepEqual(doc(expectOk(await driver.read("bob", "projects", id), "read")), read);
      // The same read with refs as ids goes back just as well.
      const plain = doc(
        expectOk(await driver.read("bob", "projects", id, { populate: [] }), "read"),
      );
      assert.equal(plain.lead, alice.userId, "populate: [] leaves refs as ids");
      expectOk(await driver.update("bob", "projects", id, asBody(plain)), "update");
      assert.deepEqual(await storedProjectJson(id), before, "still unchanged");
    },
  },
  {
    group,
    name: "an object with id or _id is taken as that id, top-level, in arrays and subdocuments",
    async run({ driver, world, tag }) {
      const { alice, bob, carol } = world.accounts;
      const created = doc(
        expectOk(
          await driver.create("bob", "projects", {
            name: `refs ${tag}`,
            members: [{ user: { id: bob.userId, name: "ignored" }, role: "editor" }],
            lead: { _id: alice.userId, anything: { deep: true } },
            reviewers: [{ id: carol.userId }, alice.userId],
          }),
          "create",
        ),
      );
      const id = String(created.id);
      const kept = await storedRefs(id);
      assert.ok(kept.lead instanceof mongoose.Types.ObjectId, "lead is stored as an ObjectId");
      assert.equal(hex(kept.lead), alice.userId);
      assert.deepEqual(kept.reviewers.map(hex), [carol.userId, alice.userId]);
      assert.ok(kept.members[0].user instanceof mongoose.Types.ObjectId);
      assert.equal(hex(kept.members[0].user), bob.userId);
      // And on update.
      expectOk(
        await driver.update("bob", "projects", id, {
          lead: { id: carol.userId },
          members: [{ user: { _id: bob.userId } }, { user: { id: alice.userId, name: "x" } }],
        }),
        "update",
      );
      const after = await storedRefs(id);
      assert.equal(hex(after.lead), carol.userId);
      assert.deepEqual(
        after.members.map((m) => hex(m.user)),
        [bob.userId, alice.userId],
      );
      // An object without an id, or with a malformed one, is refused naming the path.
      expectError(await driver.update("bob", "projects", id, { lead: { name: "alice" } }), {
        code: "validation_failed",
        fields: ["lead"],
      });
      expectError(
        await driver.update("bob", "projects", id, { members: [{ user: { id: "nope" } }] }),
        { code: "validation_failed", fields: ["members.0.user"] },
      );
      assert.equal(hex((await storedRefs(id)).lead), carol.userId, "nothing was written");
    },
  },
];

/** Issue #22.2 on a timestamped model: the read's own `id`, timestamps and read-only owner go back too. */
populatedRefCases.push({
  group,
  name: "a read sent back word for word (id, timestamps, read-only owner) changes nothing",
  smoke: true,
  async run({ driver, world }) {
    const id = await seedTodo(world.accounts.alice, { title: "word for word", tags: ["a"] });
    const before = JSON.stringify(await storedTodo(id));
    const read = doc(expectOk(await driver.read("alice", "todos", id), "read"));
    assert.ok(read.createdAt && read.updatedAt && read.ownerId, "the read shows them");
    const written = doc(expectOk(await driver.update("alice", "todos", id, read), "update"));
    assert.deepEqual(written, read, "the update answers what the read showed");
    assert.equal(JSON.stringify(await storedTodo(id)), before, "the database is unchanged");
    // A read-only value other than the stored one is refused, each named, and nothing is written.
    expectError(
      await driver.update("alice", "todos", id, {
        ...read,
        title: "changed",
        createdAt: "2001-01-01T00:00:00.000Z",
        ownerId: world.accounts.bob.userId,
      }),
      { code: "validation_failed", fields: ["createdAt", "ownerId"] },
    );
    assert.equal(JSON.stringify(await storedTodo(id)), before, "still unchanged");
    // The patch's own fields apply beside unchanged read-only values.
    const changed = doc(
      expectOk(await driver.update("alice", "todos", id, { ...read, title: "changed" }), "update"),
    );
    assert.equal(changed.title, "changed");
    assert.equal(changed.createdAt, read.createdAt);
  },
});
