/**
 * Workspace-scoped models (issue #35): `Note` is scoped by `workspaceId`. Alice owns Alpha
 * (carol is its viewer), bob owns Beta; each has one membership, so no call chooses. On every
 * surface: lists show only the caller's workspace, another workspace's record is 404 like a
 * missing id, the field is read-only (the core stamps it on create), roles limit the methods,
 * and no filter combinator or populate reaches another workspace.
 */
import assert from "node:assert/strict";
import { assertNotReceived, doc, expectAbsent, expectError, expectOk, pluck } from "../expect.js";
import type { Outcome } from "../outcome.js";
import { Note, seedNote, storedNote } from "../workspaceWorld.js";
import { MISSING_ID } from "../world.js";
import type { CaseContext, ContractCase } from "./types.js";

const group = "workspaces";

/** A refused method: 403 on REST; on the tools, a tool the caller does not have. */
function expectRefused({ driver }: CaseContext, outcome: Outcome): void {
  if (driver.surface === "rest") expectError(outcome, { code: "forbidden" });
  else expectAbsent(outcome);
}

export const workspaceCases: ContractCase[] = [
  {
    group,
    name: "a member's list holds only their workspace's notes, even filtered on another's id",
    smoke: true,
    async run({ driver, world, tag }) {
      const { alpha, beta } = world.workspaces;
      const mine = `alpha note ${tag}`;
      const theirs = `beta note ${tag}`;
      await seedNote(alpha, { title: mine });
      await seedNote(beta, { title: theirs });
      const listed = expectOk(await driver.list("alice", "notes", { limit: 50 }), "list");
      const titles = pluck(listed, "title");
      assert.ok(titles.includes(mine), "alice sees Alpha's note");
      assert.ok(!titles.includes(theirs), "alice never sees Beta's note");
      assertNotReceived(listed, theirs);
      for (const row of listed.data as Array<Record<string, unknown>>) {
        assert.equal(row.workspaceId, alpha);
      }
      const aimed = expectOk(
        await driver.list("alice", "notes", { filter: { workspaceId: beta } }),
        "list",
      );
      assert.equal(aimed.page?.total, 0);
      assertNotReceived(aimed, theirs);
      const bobs = expectOk(await driver.list("bob", "notes", { limit: 50 }), "list");
      assert.ok(pluck(bobs, "title").includes(theirs));
      assertNotReceived(bobs, mine);
    },
  },
  {
    group,
    name: "another workspace's note is not_found like a missing id, and nothing changes",
    async run({ driver, world, tag }) {
      const title = `alpha only ${tag}`;
      const id = await seedNote(world.workspaces.alpha, { title, body: "unchanged" });
      const theirs = expectError(await driver.read("bob", "notes", id), { code: "not_found" });
      assertNotReceived(theirs, title);
      const missing = expectError(await driver.read("bob", "notes", MISSING_ID), {
        code: "not_found",
      });
      assert.equal(
        theirs.detail.replaceAll(id, "<id>"),
        missing.detail.replaceAll(MISSING_ID, "<id>"),
      );
      expectError(await driver.update("bob", "notes", id, { body: "pwned" }), {
        code: "not_found",
      });
      expectError(await driver.delete("bob", "notes", id), { code: "not_found" });
      const stored = await storedNote(id);
      assert.equal(stored?.body, "unchanged");
      assert.equal(String(stored?.workspaceId), world.workspaces.alpha);
    },
  },
  {
    group,
    name: "a create stores the caller's workspace; a body naming the field is refused unwritten",
    smoke: true,
    async run({ driver, world, tag }) {
      const created = doc(
        expectOk(await driver.create("alice", "notes", { title: `made ${tag}` }), "create"),
      );
      assert.equal(created.workspaceId, world.workspaces.alpha);
      assert.equal(
        String((await storedNote(String(created.id)))?.workspaceId),
        world.workspaces.alpha,
      );
      const title = `moved ${tag}`;
      expectError(
        await driver.create("alice", "notes", { title, workspaceId: world.workspaces.beta }),
        { code: "validation_failed", fields: ["workspaceId"] },
      );
      assert.equal(await Note.countDocuments({ title }), 0, "nothing was written");
    },
  },
  {
    group,
    name: "the workspace field is read-only on update: another value is a 400 and nothing is written",
    async run({ driver, world, tag }) {
      const { alpha, beta } = world.workspaces;
      const id = await seedNote(alpha, { title: `stays ${tag}` });
      expectError(
        await driver.update("alice", "notes", id, { workspaceId: beta, title: "moved" }),
        { code: "validation_failed", fields: ["workspaceId"] },
      );
      const stored = await storedNote(id);
      assert.equal(String(stored?.workspaceId), alpha);
      assert.equal(stored?.title, `stays ${tag}`);
      // The value a read shows, sent back unchanged, is accepted.
      const updated = doc(
        expectOk(
          await driver.update("alice", "notes", id, { workspaceId: alpha, title: "renamed" }),
          "update",
        ),
      );
      assert.equal(updated.title, "renamed");
      assert.equal(updated.workspaceId, alpha);
    },
  },
  {
    group,
    name: "roles: a viewer lists and reads, but may not create, update or delete",
    async run(ctx) {
      const { driver, world, tag } = ctx;
      const id = await seedNote(world.workspaces.alpha, { title: `viewed ${tag}` });
      expectOk(await driver.list("carol", "notes"), "list");
      assert.equal(
        doc(expectOk(await driver.read("carol", "notes", id), "read")).title,
        `viewed ${tag}`,
      );
      expectRefused(ctx, await driver.create("carol", "notes", { title: `viewer made ${tag}` }));
      expectRefused(ctx, await driver.update("carol", "notes", id, { title: "viewer" }));
      expectRefused(ctx, await driver.delete("carol", "notes", id));
      assert.equal((await storedNote(id))?.title, `viewed ${tag}`);
      assert.equal(await Note.countDocuments({ title: `viewer made ${tag}` }), 0);
      // The owner may delete.
      expectOk(await driver.delete("alice", "notes", id), "delete");
      assert.equal(await storedNote(id), null);
    },
  },
  {
    group,
    name: "$or and $and never reach another workspace's notes",
    async run({ driver, world, tag }) {
      const { beta } = world.workspaces;
      const theirs = `beta combinator ${tag}`;
      await seedNote(beta, { title: theirs });
      for (const filter of [
        { $or: [{ workspaceId: beta }, { title: theirs }] },
        { $and: [{ title: theirs }] },
        { $or: [{ $and: [{ workspaceId: beta }, { title: theirs }] }, { title: "nothing" }] },
      ]) {
        const outcome = expectOk(await driver.list("alice", "notes", { filter }), "list");
        assert.equal(outcome.page?.total, 0, JSON.stringify(filter));
        assertNotReceived(outcome, theirs);
      }
    },
  },
  {
    group,
    name: "a populate never shows another workspace's note",
    async run({ driver, world, tag }) {
      const { alpha, beta } = world.workspaces;
      const secret = `beta secret ${tag}`;
      const betaNote = await seedNote(beta, { title: secret });
      const sibling = await seedNote(alpha, { title: `alpha sibling ${tag}` });
      const pointsAway = await seedNote(alpha, { title: `points away ${tag}`, related: betaNote });
      const pointsHome = await seedNote(alpha, { title: `points home ${tag}`, related: sibling });
      const away = expectOk(await driver.read("alice", "notes", pointsAway), "read");
      assertNotReceived(away, secret);
      const related = doc(away).related;
      assert.ok(related === null || related === undefined, JSON.stringify(related));
      const listed = expectOk(
        await driver.list("alice", "notes", { filter: { related: betaNote } }),
        "list",
      );
      assertNotReceived(listed, secret);
      const home = doc(expectOk(await driver.read("alice", "notes", pointsHome), "read"));
      assert.equal((home.related as { title?: unknown } | null)?.title, `alpha sibling ${tag}`);
    },
  },
];
