/**
 * The example's chat renders a tool's MCP App (issue 25.5), in a real browser (Debian's
 * chromium, driven by playwright-core) against the example app and a real database: "list my
 * todos" shows the todos table inside the tool card, in a sandboxed frame; its columns sort
 * through the list tool; ticking a todo there asks the person first (the server's approval),
 * writes nothing before, and completes it once approved. Any CSP violation, in the page or in
 * the frame (useExamplePage's init script reaches the sandboxed frame too), any script error or
 * foreign request fails the test.
 *
 * `UPDATE_SCREENSHOTS=1` refreshes the README's screenshot of the app inside the chat.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { browserSkipReason } from "../helpers/browser.js";
import { useTestDatabase } from "../helpers/database.js";
import { useExamplePage } from "../helpers/examplePage.js";

useTestDatabase("example_apps_browser");

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SCREENSHOT = path.join(REPO_ROOT, "docs/images/example-chat-app.png");

describe("an MCP App inside the example's chat", { skip: browserSkipReason() }, () => {
  const ex = useExamplePage({ viewport: { width: 1280, height: 860 } });
  const { api } = ex;

  async function create(body: { title: string; priority: number }): Promise<void> {
    const { status } = await ex.call("POST", "/todos", body);
    assert.equal(status, 201, "POST /todos");
  }

  test("list my todos shows the table app; ticking a todo completes it after approval", async () => {
    const page = ex.page;
    await ex.signUp("apps@example.com");
    await page.getByRole("heading", { name: "Your todos" }).waitFor();
    await create({ title: "buy milk", priority: 2 });
    await create({ title: "call mom", priority: 1 });

    const box = page.getByRole("textbox", { name: "Message" });
    await box.fill("list my todos");
    await box.press("Enter");
    const card = page.getByRole("region", { name: "Tool call todos_list" });
    await card.getByText("Done").waitFor();
    const app = page.frameLocator('iframe[title="todos_list app"]');
    const table = app.getByRole("table");
    await table.getByRole("cell", { name: "buy milk", exact: true }).waitFor();
    await table.getByRole("cell", { name: "call mom", exact: true }).waitFor();
    // The frame is sandboxed: scripts, but no same origin (so no cookies, storage or page DOM).
    assert.equal(
      await page.locator('iframe[title="todos_list app"]').getAttribute("sandbox"),
      "allow-scripts",
    );

    // Sorting pages through the list tool itself.
    const firstTitle = () => table.locator("tbody tr").first().locator("td").first().textContent();
    await app.getByRole("button", { name: "Title" }).click();
    await app.getByRole("columnheader", { name: /Title ▲/ }).waitFor();
    assert.equal(await firstTitle(), "buy milk");
    await app.getByRole("button", { name: /Title/ }).click();
    await app.getByRole("columnheader", { name: /Title ▼/ }).waitFor();
    assert.equal(await firstTitle(), "call mom");

    // Ticking a todo is the host's call of todos_update: held for the person's approval.
    const milk = app.getByRole("checkbox", { name: "Completed: buy milk" });
    assert.equal(await milk.isChecked(), false);
    await milk.check();
    const ask = card.getByRole("group", { name: "Approve todos_update?" });
    await ask.waitFor();
    const held = await api("/chat/approvals");
    assert.deepEqual(
      held.map((row) => row.toolName),
      ["todos_update"],
      "the server recorded the request",
    );
    assert.equal(
      (await api("/todos")).find((todo) => todo.title === "buy milk")?.completed,
      false,
      "nothing is written before the approval",
    );
    await page.screenshot({ path: path.join(os.tmpdir(), "apps-ask.png") });
    await ask.getByRole("button", { name: "Approve" }).click();
    await app.getByText("Saved “buy milk”.").waitFor();
    assert.equal(await milk.isChecked(), true);
    const todos = await api("/todos");
    assert.equal(todos.find((todo) => todo.title === "buy milk")?.completed, true);
    assert.equal(todos.find((todo) => todo.title === "call mom")?.completed, false);
    assert.deepEqual(await api("/chat/approvals"), [], "the approval was answered");

    // The README's picture: the table app inside the chat.
    const shot = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "example-app-")), "shot.png");
    await page.screenshot({ path: shot });
    assert.ok(fs.statSync(shot).size > 10_000, "a non-trivial screenshot");
    if (process.env.UPDATE_SCREENSHOTS === "1" || !fs.existsSync(SCREENSHOT)) {
      fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
      fs.copyFileSync(shot, SCREENSHOT);
    }

    assert.deepEqual(ex.problems, [], "no script error, CSP violation, failed or foreign request");
  });
});
