/** A duplicate unique value (Food.name) is a 409 conflict naming the field, on create and update. */
import assert from "node:assert/strict";
import { Food } from "../../helpers/models.js";
import { expectError } from "../expect.js";
import { seedFood, storedFood } from "../world.js";
import type { ContractCase } from "./types.js";

const group = "conflicts";

export const conflictCases: ContractCase[] = [
  {
    group,
    name: "creating a Food whose name exists is a conflict naming name",
    smoke: true,
    async run({ driver }) {
      const refused = expectError(await driver.create("bob", "foods", { name: "ctr-apple" }), {
        code: "conflict",
        fields: ["name"],
      });
      assert.match(refused.detail, /\bname\b/);
      assert.equal(await Food.countDocuments({ name: "ctr-apple" }), 1);
    },
  },
  {
    group,
    name: "renaming a Food to an existing name is a conflict naming name",
    async run({ driver, world }) {
      const id = await seedFood(world.accounts.alice);
      const before = (await storedFood(id))?.name;
      expectError(await driver.update("alice", "foods", id, { name: "ctr-pizza" }), {
        code: "conflict",
        fields: ["name"],
      });
      assert.equal((await storedFood(id))?.name, before);
    },
  },
];
