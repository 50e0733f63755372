/**
 * Issue #22.4, strict tool inputs: an action's or custom tool's input refuses keys its zod
 * schema does not declare (`validation_failed` naming each key by its argument path, once),
 * at the top and inside nested objects, unless the action or tool sets `allowUnknownKeys`.
 */
import assert from "node:assert/strict";
import { expectError, expectOk } from "../expect.js";
import { storedProject } from "../world.js";
import { seedFullProject } from "./projectFixtures.js";
import type { ContractCase } from "./types.js";

const group = "unknown keys";
const REFUSED = "is not an allowed field";

export const unknownKeyCases: ContractCase[] = [
  {
    group,
    name: "an action refuses an unknown key and changes nothing",
    smoke: true,
    async run({ driver, world, tag }) {
      const { alice, bob } = world.accounts;
      const id = await seedFullProject(bob, alice, tag);
      const before = await storedProject(id);
      const failure = expectError(
        await driver.action("bob", "projects", "rename", id, { name: `r ${tag}`, bogus: 1 }),
        { code: "validation_failed" },
      );
      assert.deepEqual(failure.fields, { bogus: REFUSED });
      assert.equal((await storedProject(id))?.name, before?.name);
    },
  },
  {
    group,
    name: "a custom tool refuses unknown keys, top-level and nested, each named once",
    smoke: true,
    async run({ driver }) {
      const top = expectError(await driver.tool("alice", "echo_closed", { text: "x", bogus: 1 }), {
        code: "validation_failed",
      });
      assert.deepEqual(top.fields, { bogus: REFUSED });
      const nested = expectError(
        await driver.tool("alice", "echo_closed", { text: "x", nested: { n: 1, extra: 2 } }),
        { code: "validation_failed" },
      );
      assert.deepEqual(nested.fields, { "nested.extra": REFUSED });
      // With a zod error as well: both named, each once.
      const both = expectError(await driver.tool("alice", "echo_closed", { bogus: 1 }), {
        code: "validation_failed",
        fields: ["bogus", "text"],
      });
      assert.equal(Object.keys(both.fields ?? {}).length, 2, JSON.stringify(both.fields));
      const ok = expectOk(await driver.tool("alice", "echo_closed", { text: "x" }), "read");
      assert.deepEqual(ok.data, { keys: ["text"] });
    },
  },
  {
    group,
    name: "an action or custom tool that sets allowUnknownKeys accepts them",
    async run({ driver }) {
      const tool = expectOk(
        await driver.tool("alice", "echo_open", { text: "x", bogus: 1 }),
        "read",
      );
      assert.deepEqual(tool.data, { keys: ["text", "bogus"] }, "a loose object keeps them");
      const action = expectOk(
        await driver.action("alice", "projects", "tally", undefined, { name: "x", bogus: 1 }),
        "read",
      );
      assert.deepEqual(action.data, { keys: ["name"] }, "a plain object strips them");
    },
  },
];
