/**
 * Issue #22.7's last two disagreements between the schemas and the server, on every surface:
 * - string lengths count UTF-16 units, as the model's `maxlength` does (a character outside
 *   the BMP, such as an emoji, counts two), and a refusal says so;
 * - a leap second (`23:59:60Z`, a valid RFC 3339 date-time that JavaScript's Date refuses) is
 *   taken as the next second, in writes and in filters.
 */
import assert from "node:assert/strict";
import { Todo } from "../../helpers/models.js";
import { doc, expectError, expectOk, pluck } from "../expect.js";
import type { ContractCase } from "./types.js";

const group = "text and time";

/** Todo titles are `maxlength: 200`: 100 emoji are 200 units, 101 are 202 (yet 101 code points). */
const EMOJI = "\u{1F95B}";

export const textAndTimeCases: ContractCase[] = [
  {
    group,
    name: "lengths count UTF-16 units, as the model does; the refusal says so",
    async run({ driver, world }) {
      const owner = world.accounts.alice.userId;
      const full = EMOJI.repeat(100);
      const created = doc(
        expectOk(await driver.create("alice", "todos", { title: full }), "create"),
      );
      assert.equal(created.title, full);
      const before = await Todo.countDocuments({ ownerId: owner });
      const over = expectError(
        await driver.create("alice", "todos", { title: EMOJI.repeat(101) }),
        { code: "validation_failed", fields: ["title"] },
      );
      assert.match(over.fields?.title ?? "", /at most 200 characters \(UTF-16 units/);
      assert.equal(await Todo.countDocuments({ ownerId: owner }), before, "nothing was written");
      const id = String(created.id);
      expectError(await driver.update("alice", "todos", id, { title: `${full}x` }), {
        code: "validation_failed",
        fields: ["title"],
      });
      assert.equal((await Todo.findById(id).lean())?.title, full, "the update wrote nothing");
    },
  },
  {
    group,
    name: "a leap second is the next second, written and filtered",
    smoke: true,
    async run({ driver, tag }) {
      const title = `leap ${tag}`;
      const created = doc(
        expectOk(
          await driver.create("alice", "todos", { title, dueDate: "2031-06-30T23:59:60Z" }),
          "create",
        ),
      );
      assert.equal(created.dueDate, "2031-07-01T00:00:00.000Z");
      const id = String(created.id);
      const updated = doc(
        expectOk(
          await driver.update("alice", "todos", id, { dueDate: "2031-12-31T18:29:60.5-05:30" }),
          "update",
        ),
      );
      assert.equal(updated.dueDate, "2032-01-01T00:00:00.500Z");
      const found = expectOk(
        await driver.list("alice", "todos", {
          filter: { title, dueDate: { $gte: "2031-12-31T23:59:60Z" } },
        }),
        "list",
      );
      assert.deepEqual(pluck(found, "id"), [id]);
      // Only 23:59 UTC has a 61st second.
      expectError(await driver.update("alice", "todos", id, { dueDate: "2031-06-30T10:00:60Z" }), {
        code: "validation_failed",
        fields: ["dueDate"],
      });
      expectError(
        await driver.list("alice", "todos", { filter: { dueDate: "2031-06-30T10:00:60Z" } }),
        { code: "validation_failed", fields: ["dueDate"] },
      );
    },
  },
];
