/**
 * Limits and paging over carol's 12 todos. The limits differ by surface by configuration
 * (test/helpers/restApp.ts todoOptions: defaultLimit 10, maxLimit 25, mcp.maxLimit 5).
 */
import assert from "node:assert/strict";
import type { Surface } from "../drivers/types.js";
import { expectError, expectOk, pluck } from "../expect.js";
import { CAROL_TODOS } from "../world.js";
import type { ContractCase } from "./types.js";

const group = "limits and paging";

const LIMITS: Record<Surface, { defaultLimit: number; maxLimit: number }> = {
  rest: { defaultLimit: 10, maxLimit: 25 },
  tools: { defaultLimit: 5, maxLimit: 5 },
};

const TOTAL = CAROL_TODOS.length;

export const pagingCases: ContractCase[] = [
  {
    group,
    name: "page and limit: page 1 of 3 has more, page 3 is the rest",
    smoke: true,
    async run({ driver }) {
      const first = expectOk(
        await driver.list("carol", "todos", { sort: "title", limit: 5 }),
        "list",
      );
      assert.deepEqual(first.page, { page: 1, limit: 5, total: TOTAL, more: true });
      assert.deepEqual(pluck(first, "title"), ["t00", "t01", "t02", "t03", "t04"]);
      const last = expectOk(
        await driver.list("carol", "todos", { sort: "title", limit: 5, page: 3 }),
        "list",
      );
      assert.deepEqual(last.page, { page: 3, limit: 5, total: TOTAL, more: false });
      assert.deepEqual(pluck(last, "title"), ["t10", "t11"]);
    },
  },
  {
    group,
    name: "a huge limit is clamped to the surface's maxLimit (REST 25, tools 5)",
    async run({ driver }) {
      const { maxLimit } = LIMITS[driver.surface];
      const outcome = expectOk(await driver.list("carol", "todos", { limit: 1000 }), "list");
      assert.equal(outcome.page?.limit, maxLimit);
      assert.equal((outcome.data as unknown[]).length, Math.min(TOTAL, maxLimit));
      assert.equal(outcome.page?.more, TOTAL > maxLimit);
      assert.equal(outcome.page?.total, TOTAL);
    },
  },
  {
    group,
    name: "no limit: the default, bounded by maxLimit (REST 10, tools 5)",
    async run({ driver }) {
      const { defaultLimit } = LIMITS[driver.surface];
      const outcome = expectOk(await driver.list("carol", "todos"), "list");
      assert.equal(outcome.page?.limit, defaultLimit);
      assert.equal((outcome.data as unknown[]).length, defaultLimit);
      assert.equal(outcome.page?.more, true);
    },
  },
  {
    group,
    name: "multi-key sort: -priority,title",
    async run({ driver }) {
      const outcome = expectOk(
        await driver.list("carol", "todos", { sort: "-priority,title", limit: 3 }),
        "list",
      );
      assert.deepEqual(pluck(outcome, "title"), ["t04", "t09", "t03"]);
    },
  },
  {
    group,
    name: "sort by internalNote: refused like an unknown field on tools, a working sort on REST",
    async run({ driver }) {
      const outcome = await driver.list("carol", "todos", { sort: "internalNote", limit: 2 });
      if (driver.surface === "rest") {
        assert.equal((expectOk(outcome, "list").data as unknown[]).length, 2);
        return;
      }
      const hidden = expectError(outcome, { code: "validation_failed", fields: ["sort"] });
      const unknown = expectError(
        await driver.list("carol", "todos", { sort: "nosuchfield", limit: 2 }),
        { code: "validation_failed", fields: ["sort"] },
      );
      const anonymize = (text: string) =>
        text.replaceAll("internalNote", "<field>").replaceAll("nosuchfield", "<field>");
      assert.equal(
        anonymize(JSON.stringify([hidden.detail, hidden.fields])),
        anonymize(JSON.stringify([unknown.detail, unknown.fields])),
      );
    },
  },
  {
    group,
    name: "page 0, limit 0 and an unknown sort field are refused",
    async run({ driver }) {
      expectError(await driver.list("carol", "todos", { page: 0 }), {
        code: "validation_failed",
        fields: ["page"],
      });
      expectError(await driver.list("carol", "todos", { limit: 0 }), {
        code: "validation_failed",
        fields: ["limit"],
      });
      expectError(await driver.list("carol", "todos", { sort: "nosuch" }), {
        code: "validation_failed",
        fields: ["sort"],
      });
    },
  },
];
