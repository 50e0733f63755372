/**
 * Writes that finish cleanly: a model whose `read` is disabled (`read: []`) but which has
 * populatePaths still answers create with the document (201 on REST), owner populated.
 */
import assert from "node:assert/strict";
import { doc, expectAbsent, expectError, expectOk } from "../expect.js";
import { Memo } from "../world.js";
import type { ContractCase } from "./types.js";

const group = "writes";

export const writeCases: ContractCase[] = [
  {
    group,
    name: "create on a read-disabled model with populatePaths answers with the document",
    smoke: true,
    async run({ driver, world, tag }) {
      const created = doc(
        expectOk(await driver.create("alice", "memos", { text: `memo ${tag}` }), "create"),
      );
      assert.match(String(created.id), /^[0-9a-f]{24}$/);
      assert.equal(created.text, `memo ${tag}`);
      assert.deepEqual(created.ownerId, { id: world.accounts.alice.userId, name: "alice" });
      const stored = await Memo.findById(created.id).lean<{ text: string }>();
      assert.equal(stored?.text, `memo ${tag}`);
      // Reading stays disabled: 405 on REST, no tool on the tool surfaces.
      const read = await driver.read("alice", "memos", String(created.id));
      if (driver.surface === "rest") expectError(read, { code: "method_not_allowed" });
      else expectAbsent(read);
    },
  },
];
