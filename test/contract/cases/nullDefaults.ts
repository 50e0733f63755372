/**
 * Issue #22.3, defaults and null agree: `null` on a field with a default stores the default
 * (nested defaults too), so read, filter and sort see one value; without a default, `null`
 * removes the field, as a merge patch (RFC 7396) does.
 */
import assert from "node:assert/strict";
import { doc, expectError, expectOk, pluck } from "../expect.js";
import { storedProject } from "../world.js";
import { seedFullProject, storedProjectJson } from "./projectFixtures.js";
import type { ContractCase } from "./types.js";

const group = "defaults and null";

export const nullDefaultCases: ContractCase[] = [
  {
    group,
    name: "null on a field with a default stores the default; read, filter and sort agree",
    smoke: true,
    async run({ driver, world, tag: run }) {
      // Names of its own: the other cases seed `project ${run}` too.
      const tag = `${run} reset`;
      const { alice, bob } = world.accounts;
      const id = await seedFullProject(bob, alice, tag);
      const updated = doc(
        expectOk(
          await driver.update("bob", "projects", id, { status: null, settings: null }),
          "update",
        ),
      );
      assert.equal(updated.status, "draft");
      assert.deepEqual(updated.settings, { visibility: "private" });
      const kept = await storedProject(id);
      assert.equal(kept?.status, "draft", "the default is stored");
      assert.deepEqual(kept?.settings, { visibility: "private" });
      const read = doc(expectOk(await driver.read("bob", "projects", id), "read"));
      assert.equal(read.status, "draft");
      assert.deepEqual(read.settings, { visibility: "private" });
      for (const filter of [{ status: "draft" }, { "settings.visibility": "private" }]) {
        const found = expectOk(
          await driver.list("bob", "projects", { filter: { name: `project ${tag}`, ...filter } }),
          "list",
        );
        assert.deepEqual(pluck(found, "id"), [id], `filter ${JSON.stringify(filter)}`);
      }
      // Sorting sees the default too: "archived" < "draft" (a missing value would sort first).
      const other = await seedFullProject(bob, alice, `${tag} other`, { status: "archived" });
      const sorted = expectOk(
        await driver.list("bob", "projects", {
          filter: { name: { $in: [`project ${tag}`, `project ${tag} other`] } },
          sort: "status",
        }),
        "list",
      );
      assert.deepEqual(pluck(sorted, "id"), [other, id], "sorted by the stored default");
    },
  },
  {
    group,
    name: "null on a nested field with a default stores it; without a default, null removes",
    async run({ driver, world, tag }) {
      const { alice, bob } = world.accounts;
      const id = await seedFullProject(bob, alice, tag);
      const updated = doc(
        expectOk(
          await driver.update("bob", "projects", id, {
            settings: { visibility: null },
            summary: null,
            lead: null,
          }),
          "update",
        ),
      );
      assert.deepEqual(updated.settings, { visibility: "private", color: "red" });
      assert.equal("summary" in updated, false);
      const kept = await storedProject(id);
      assert.deepEqual(kept?.settings, { visibility: "private", color: "red" });
      assert.equal("lead" in (kept ?? {}), false, "a field without a default is removed");
      // The merge patch is otherwise as before: siblings stay, an unchanged value writes nothing.
      const before = await storedProjectJson(id);
      expectOk(await driver.update("bob", "projects", id, { status: "active" }), "update");
      assert.deepEqual(
        await storedProjectJson(id),
        before,
        "a patch that changes nothing writes nothing",
      );
    },
  },
];

/**
 * Null as "the default" is a merge patch's: a create, or an array item (written whole), takes
 * the default when the field is left out, and refuses null, naming it, on every surface.
 */
nullDefaultCases.push({
  group,
  name: "on create and in array items, a field left out takes its default; null is refused",
  async run({ driver, world, tag }) {
    const { alice, bob } = world.accounts;
    const created = doc(
      expectOk(
        await driver.create("bob", "projects", {
          name: `project ${tag} left out`,
          members: [{ user: bob.userId, role: "editor" }, { user: alice.userId }],
        }),
        "create",
      ),
    );
    assert.equal(created.status, "draft");
    assert.deepEqual(created.settings, { visibility: "private" });
    assert.equal((created.members as Array<{ role?: string }>)[1]?.role, "viewer");
    const before = await storedProject(String(created.id));
    expectError(
      await driver.create("bob", "projects", { name: `project ${tag} null`, status: null }),
      { code: "validation_failed", fields: ["status"] },
    );
    expectError(
      await driver.update("bob", "projects", String(created.id), {
        members: [
          { user: bob.userId, role: "editor" },
          { user: alice.userId, role: null },
        ],
      }),
      { code: "validation_failed", fields: ["members.1.role"] },
    );
    assert.deepEqual(await storedProject(String(created.id)), before, "nothing was written");
  },
});
