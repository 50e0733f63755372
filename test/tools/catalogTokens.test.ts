/**
 * The token cost of the tool catalogs a model reads before its first call (issue #12, item 6):
 * for each tool, `JSON.stringify({name, description, inputSchema})` encoded with o200k_base, the
 * encoding of GPT-4o and later (the issue's own measure: the example's seven tools were 2,567
 * tokens and todos_list 988). Each list tool may cost at most 60% of what it cost before, with
 * the same typed values and operators, and each catalog at most 75%. Token counts are
 * deterministic, so these are exact budgets, not timings.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import mongoose from "mongoose";
import type { ToolDefinition } from "../../src/tools/toolDefinitions.js";
import { baselineExampleTools } from "./fixtures/baselineExample.js";

/** Measured at 15cfc01 (before this change), in a worktree of that commit. */
const BASELINE: Record<string, Record<string, number>> = {
  example: {
    foods_list: 943,
    foods_read: 136,
    todos_create: 144,
    todos_delete: 71,
    todos_list: 988,
    todos_read: 100,
    todos_update: 185,
  },
  bench: {
    todos_create: 144,
    todos_delete: 71,
    todos_list: 1030,
    todos_read: 142,
    todos_update: 185,
  },
  widget: { widget000s_list: 1679, widget000s_read: 128 },
};
const LIST_SHARE = 0.6;
const CATALOG_SHARE = 0.75;

function tokens(tool: ToolDefinition): number {
  const { name, description, inputSchema } = tool;
  return encode(JSON.stringify({ name, description, inputSchema })).length;
}

async function catalogs(): Promise<Record<string, ToolDefinition[]>> {
  // The example's models as they were at the baseline: like for like (see the fixture).
  const example = baselineExampleTools();
  // The example's and the bench's User and Todo share names on the default connection; the
  // example's definitions are built, so its models can leave the registry.
  for (const name of mongoose.modelNames()) mongoose.deleteModel(name);
  const { syntheticRouters, todoRouter } = await import("../../bench/models.js");
  const { resourceOf } = await import("../../src/rest/modelRouter.js");
  const { buildToolDefinitions } = await import("../../src/tools/toolDefinitions.js");
  const definitionsOf = (routers: unknown[]) =>
    buildToolDefinitions(
      routers.map((router) => {
        const resource = resourceOf(router);
        assert.ok(resource);
        return resource;
      }),
    );
  return {
    example,
    bench: definitionsOf([todoRouter()]),
    widget: definitionsOf(syntheticRouters(1)),
  };
}

describe("the token cost of the tool catalogs", async () => {
  const all = await catalogs();

  for (const [catalog, before] of Object.entries(BASELINE)) {
    test(`${catalog}: list tools ≤ ${LIST_SHARE * 100}%, the catalog ≤ ${CATALOG_SHARE * 100}% of before`, (t) => {
      // Tools added since the baseline (actions such as todos_complete, /users) are not in it:
      // the budgets compare the same tools.
      const tools = all[catalog].filter((tool) => Object.hasOwn(before, tool.name));
      assert.deepEqual(tools.map((tool) => tool.name).sort(), Object.keys(before).sort());
      let total = 0;
      for (const tool of tools) {
        const count = tokens(tool);
        total += count;
        t.diagnostic(`${tool.name}: ${count} tokens (was ${before[tool.name]})`);
        if (tool.method === "list") {
          assert.ok(
            count <= LIST_SHARE * before[tool.name],
            `${tool.name} costs ${count} tokens, over ${LIST_SHARE * before[tool.name]}`,
          );
        }
      }
      const budget = CATALOG_SHARE * Object.values(before).reduce((sum, n) => sum + n, 0);
      t.diagnostic(`${catalog} catalog: ${total} tokens (budget ${budget})`);
      assert.ok(total <= budget, `the ${catalog} catalog costs ${total} tokens, over ${budget}`);
    });
  }

  test("the lean list schema keeps typed values and every operator", () => {
    const list = all.example.find((tool) => tool.name === "todos_list");
    const filter = list?.inputSchema.properties?.filter;
    const operators = (path: string) =>
      Object.keys(filter?.properties?.[path].anyOf?.[1].properties ?? {});
    assert.deepEqual(filter?.properties?.completed.anyOf?.[0], { type: "boolean" });
    assert.deepEqual(operators("title"), [
      "$eq",
      "$ne",
      "$in",
      "$nin",
      "$exists",
      "$regex",
      "$options",
    ]);
    assert.deepEqual(operators("dueDate"), [
      "$eq",
      "$ne",
      "$gt",
      "$gte",
      "$lt",
      "$lte",
      "$in",
      "$nin",
      "$exists",
    ]);
    assert.deepEqual(Object.keys(filter?.properties ?? {}).slice(-2), ["$or", "$and"]);
  });
});
