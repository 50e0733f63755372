// Issue #11, one contract suite: every case in cases/ runs against REST (supertest), MCP (a
// real SDK client) and the AI SDK tools (getMCPTools), each through a driver that normalizes
// outcomes to `{ok: true, data} | {ok: false, status, code, fields?, detail}`. The smoke
// passes run the cases marked `smoke` with the other MCP clients and through generateText.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { useTestDatabase } from "../helpers/database.js";
import { CONTRACT_CASES } from "./cases/index.js";
import { aiDriver } from "./drivers/ai.js";
import { mcpDriver } from "./drivers/mcp.js";
import { restDriver, toQueryString } from "./drivers/rest.js";
import type { Driver } from "./drivers/types.js";
import { watched } from "./watch.js";
import { createWorld, type World } from "./world.js";

useTestDatabase("contract");

type MakeDriver = (world: World) => Driver;

const FULL_PASSES: Array<[string, MakeDriver]> = [
  ["rest", (world) => restDriver(world)],
  ["mcp v2-auto", (world) => mcpDriver(world, "v2-auto")],
  ["ai execute", (world) => aiDriver(world, "execute")],
];

const SMOKE_PASSES: Array<[string, MakeDriver]> = [
  ["mcp v1", (world) => mcpDriver(world, "v1")],
  ["mcp v2-legacy", (world) => mcpDriver(world, "v2-legacy")],
  ["ai generateText", (world) => aiDriver(world, "generateText")],
];

let world: World;
before(async () => {
  world = await createWorld();
});
after(() => world.close());

function pass(label: string, make: MakeDriver, smokeOnly: boolean): void {
  describe(`contract on ${label}`, () => {
    let driver: Driver;
    before(() => {
      driver = watched(make(world));
    });
    after(() => driver.close());
    const tag = label.replace(/\W+/g, "-");
    for (const contractCase of CONTRACT_CASES) {
      if (smokeOnly && !contractCase.smoke) continue;
      test(`${contractCase.group}: ${contractCase.name}`, () =>
        contractCase.run({ driver, world, tag }));
    }
  });
}

for (const [label, make] of FULL_PASSES) pass(label, make, false);
for (const [label, make] of SMOKE_PASSES) pass(label, make, true);

test("the table covers every group on every surface, and the smoke set touches each group", () => {
  const groups = new Set(CONTRACT_CASES.map((c) => c.group));
  const smokeGroups = new Set(CONTRACT_CASES.filter((c) => c.smoke).map((c) => c.group));
  assert.deepEqual([...smokeGroups].sort(), [...groups].sort());
  const names = CONTRACT_CASES.map((c) => `${c.group}: ${c.name}`);
  assert.equal(new Set(names).size, names.length, "case names are unique");
});

test("the REST driver sends filters in the documented query-string syntax", () => {
  assert.equal(toQueryString({ filter: { calories: { $gt: 100 } } }), "calories[$gt]=100");
  assert.equal(
    toQueryString({ filter: { title: { $in: ["a", "b"] } }, limit: 5 }),
    "title[$in][]=a&title[$in][]=b&limit=5",
  );
  assert.equal(
    toQueryString({ filter: { $or: [{ title: "a" }, { $and: [{ priority: { $gte: 3 } }] }] } }),
    "$or[0][title]=a&$or[1][$and][0][priority][$gte]=3",
  );
  assert.throws(() => toQueryString({ filter: { $and: [] } }), /cannot be written/);
});
