/**
 * An MCP App's table on a phone (390 px wide), in chromium inside the example's chat: a table
 * wider than its frame scrolls sideways inside its own container, so the last column is
 * reachable, instead of running off the frame's edge where nothing can bring it back.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { browserSkipReason } from "../helpers/browser.js";
import { useTestDatabase } from "../helpers/database.js";
import { useExamplePage } from "../helpers/examplePage.js";

useTestDatabase("app_table_phone_browser");

const PHONE = { width: 390, height: 844 };

interface Measure {
  overflowX: string;
  scrollWidth: number;
  clientWidth: number;
  documentWidth: number;
  frameWidth: number;
  lastVisibleAfterScroll: boolean;
}

describe("an MCP App table on a phone", { skip: browserSkipReason() }, () => {
  const ex = useExamplePage({ viewport: PHONE });

  test("the table scrolls sideways inside the frame; its last column is reachable", async () => {
    const page = ex.page;
    await ex.signUp("phone-apps@example.com");
    for (const [title, priority] of [
      ["buy oat milk and sourdough bread", 2],
      ["call mom about the weekend", 1],
    ] as const) {
      const { status } = await ex.call("POST", "/todos", {
        title,
        priority,
        dueDate: "2026-12-24T10:00:00.000Z",
        tags: ["errands", "weekend"],
      });
      assert.equal(status, 201, "POST /todos");
    }
    await ex.say("list my todos");
    const element = await page.locator('iframe[title="todos_list app"]').elementHandle();
    const frame = await element?.contentFrame();
    assert.ok(frame, "the app's frame");
    await frame.getByRole("cell", { name: "call mom about the weekend", exact: true }).waitFor();

    // A string expression: this file is compiled without the DOM's types.
    const measure = (await frame.evaluate(`(() => {
      const table = document.querySelector("table");
      const box = table.parentElement;
      const style = getComputedStyle(box);
      const before = {
        overflowX: style.overflowX,
        scrollWidth: box.scrollWidth,
        clientWidth: box.clientWidth,
        documentWidth: document.documentElement.scrollWidth,
        frameWidth: window.innerWidth,
      };
      box.scrollLeft = box.scrollWidth;
      const heads = table.querySelectorAll("thead th");
      const last = heads[heads.length - 1].getBoundingClientRect();
      const edge = box.getBoundingClientRect();
      return {
        ...before,
        lastVisibleAfterScroll: last.left >= edge.left - 1 && last.right <= edge.right + 1,
      };
    })()`)) as Measure;
    assert.ok(
      measure.scrollWidth > measure.clientWidth,
      `the table is wider than its frame here: ${JSON.stringify(measure)}`,
    );
    assert.equal(measure.overflowX, "auto", "its container scrolls sideways");
    assert.ok(
      measure.documentWidth <= measure.frameWidth,
      `the frame's page itself does not run wider than the frame: ${JSON.stringify(measure)}`,
    );
    assert.equal(measure.lastVisibleAfterScroll, true, "scrolled, the last column is in view");
    assert.deepEqual(ex.problems, [], "no script error, CSP violation, failed or foreign request");
  });
});
