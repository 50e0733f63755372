/**
 * Issue #22.5: one answer per case. An action that returns its model's document answers what a
 * read of that document answers (populated, serialized, hidden fields gone); a bad ref object
 * is named once, at the caller's path.
 */
import assert from "node:assert/strict";
import { doc, expectError, expectOk } from "../expect.js";
import { seedFullProject } from "./projectFixtures.js";
import type { ContractCase } from "./types.js";

const group = "action results";

export const actionResultCases: ContractCase[] = [
  {
    group,
    name: "an action returning its model's document answers what a read of it answers",
    smoke: true,
    async run({ driver, world, tag }) {
      const { alice, bob } = world.accounts;
      const id = await seedFullProject(bob, alice, tag);
      const renamed = doc(
        expectOk(
          await driver.action("bob", "projects", "rename", id, { name: `renamed ${tag}` }),
          "update",
        ),
      );
      const read = doc(expectOk(await driver.read("bob", "projects", id), "read"));
      assert.equal(read.name, `renamed ${tag}`);
      assert.deepEqual(renamed, read, "the action answers what the read answers");
    },
  },
  {
    group,
    name: "a bad ref object is named once, at the caller's path",
    async run({ driver, world, tag }) {
      const { alice, bob } = world.accounts;
      const id = await seedFullProject(bob, alice, tag);
      for (const lead of [{ name: "alice" }, { id: "nope" }, { _id: 5 }]) {
        const outcome = await driver.update("bob", "projects", id, { lead });
        expectError(outcome, { code: "validation_failed", fields: ["lead"] });
        if (!outcome.ok && "fields" in outcome) {
          assert.deepEqual(Object.keys(outcome.fields ?? {}), ["lead"], JSON.stringify(lead));
        }
      }
    },
  },
];
