/**
 * Issue #22.1, one document shape for every rule: on a model like a new app's own (Project,
 * ../world.ts), with members' users populated by default and a member check
 * `String(m.user) === user.id`, permissions, hooks and actions see the stored document (refs as
 * ids) whichever method asked; population is for the response only.
 */
import assert from "node:assert/strict";
import { doc, expectError, expectOk, pluck } from "../expect.js";
import { SHAPES_SEEN, storedProject } from "../world.js";
import { seedFullProject } from "./projectFixtures.js";
import type { ContractCase } from "./types.js";

const group = "document shape";

export const documentShapeCases: ContractCase[] = [
  {
    group,
    name: "a member check on a populated path gives the same answer on every method",
    smoke: true,
    async run({ driver, world, tag }) {
      const { alice, bob, carol } = world.accounts;
      const id = await seedFullProject(bob, alice, tag);
      // The member: read (members.user populated), list, update, action, delete all agree.
      const read = doc(expectOk(await driver.read("bob", "projects", id), "read"));
      const members = read.members as Array<{ user: { id: string; name?: string } }>;
      assert.equal(members[0].user.id, bob.userId, "the response is populated");
      const listed = expectOk(
        await driver.list("bob", "projects", { filter: { name: `project ${tag}` } }),
        "list",
      );
      assert.deepEqual(pluck(listed, "id"), [id]);
      expectOk(await driver.update("bob", "projects", id, { summary: "by a member" }), "update");
      expectOk(
        await driver.action("bob", "projects", "rename", id, { name: `renamed ${tag}` }),
        "read",
      );
      // A non-member: not found everywhere, and the list agrees.
      expectError(await driver.read("carol", "projects", id), { code: "not_found" });
      expectError(await driver.update("carol", "projects", id, { summary: "x" }), {
        code: "not_found",
      });
      expectError(await driver.action("carol", "projects", "rename", id, { name: "x" }), {
        code: "not_found",
      });
      expectError(await driver.delete("carol", "projects", id), { code: "not_found" });
      const theirs = expectOk(
        await driver.list("carol", "projects", { filter: { name: `renamed ${tag}` } }),
        "list",
      );
      assert.deepEqual(theirs.data, [], `${carol.userId} is no member`);
      expectOk(await driver.delete("bob", "projects", id), "delete");
      assert.equal(await storedProject(id), null);
    },
  },
  {
    group,
    name: "permissions, hooks and actions see refs as ids on every method",
    async run({ driver, world, tag }) {
      const { alice, bob } = world.accounts;
      SHAPES_SEEN.length = 0;
      const created = doc(
        expectOk(
          await driver.create("bob", "projects", {
            name: `made ${tag}`,
            members: [{ user: bob.userId }],
            lead: alice.userId,
          }),
          "create",
        ),
      );
      const id = String(created.id);
      expectOk(await driver.read("bob", "projects", id), "read");
      expectOk(await driver.update("bob", "projects", id, { status: "active" }), "update");
      expectOk(await driver.action("bob", "projects", "rename", id, { name: `r ${tag}` }), "read");
      expectOk(await driver.delete("bob", "projects", id), "delete");
      const where = SHAPES_SEEN.map((seen) => seen.where);
      for (const expected of [
        "postCreate",
        "permission:read",
        "permission:update",
        "postUpdate",
        "postUpdate prev",
        "permission:rename",
        "action",
        "permission:delete",
        "preDelete",
        "postDelete",
      ]) {
        assert.ok(where.includes(expected), `${expected} was called: ${where.join(", ")}`);
      }
      const populatedSeen = SHAPES_SEEN.filter((seen) => seen.user !== "id");
      assert.deepEqual(populatedSeen, [], "every rule saw members.user as an id");
    },
  },
];
