/**
 * The example's chat renders a tool's MCP App (issue 25.5), in a real browser (Debian's
 * chromium, driven by playwright-core) against the example app and a real database: "list my
 * todos" shows the todos table inside the tool card, in a sandboxed frame; its columns sort
 * through the list tool; ticking a todo there asks the person first (the server's approval),
 * writes nothing before, and completes it once approved. Any CSP violation, in the page or in
 * the frame, any script error or foreign request fails the test.
 *
 * `UPDATE_SCREENSHOTS=1` refreshes the README's screenshot of the app inside the chat.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { createExampleApp } from "../../example-backend/app.js";
import { ensureFrontendBuilt } from "../../example-frontend/build.js";
import type { RunningServer } from "../../src/index.js";
import { browserSkipReason, launchChromium } from "../helpers/browser.js";
import { useTestDatabase } from "../helpers/database.js";
import { JWT_SECRET } from "../helpers/restApp.js";

useTestDatabase("example_apps_browser");

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SCREENSHOT = path.join(REPO_ROOT, "docs/images/example-chat-app.png");
const SESSION_KEY = "terreno-example.session";

interface Row {
  id: string;
  [field: string]: unknown;
}

describe("an MCP App inside the example's chat", { skip: browserSkipReason() }, () => {
  let running: RunningServer;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  async function token(): Promise<string> {
    const raw = (await page.evaluate(`localStorage.getItem(${JSON.stringify(SESSION_KEY)})`)) as
      | string
      | null;
    const { token: value } = JSON.parse(raw ?? "{}") as { token?: string };
    assert.ok(value, "the page keeps an access token");
    return value;
  }

  async function api(route: string, init?: { method: string; body: unknown }): Promise<Row[]> {
    const response = await fetch(`${running.url}${route}`, {
      method: init?.method ?? "GET",
      headers: { Authorization: `Bearer ${await token()}`, "Content-Type": "application/json" },
      ...(init ? { body: JSON.stringify(init.body) } : {}),
    });
    assert.ok(response.ok, `${init?.method ?? "GET"} ${route}: ${response.status}`);
    return ((await response.json()) as { data: Row[] }).data;
  }

  before(async () => {
    const dir = await ensureFrontendBuilt((message) => process.stderr.write(`${message}\n`));
    running = await createExampleApp({ jwtSecret: JWT_SECRET, env: {}, frontendDir: dir }).start({
      port: 0,
      host: "127.0.0.1",
      handleSignals: false,
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    // Messages of every frame, the app's included.
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    page.on("requestfailed", (req) => {
      if (req.failure()?.errorText === "net::ERR_ABORTED" && req.url().endsWith("/chat")) return;
      problems.push(`request failed: ${req.url()} (${req.failure()?.errorText})`);
    });
    page.on("request", (req) => {
      const url = req.url();
      if (!url.startsWith(running.url) && !url.startsWith("data:") && url !== "about:srcdoc") {
        problems.push(`foreign request: ${url}`);
      }
    });
    // Every CSP violation of every frame (init scripts and bindings reach the sandboxed frame
    // too), none excepted.
    await page.exposeFunction(
      "reportCspViolation",
      (where: string, directive: string, blocked: string) => {
        problems.push(`CSP violation in ${where}: ${directive} blocked ${blocked}`);
      },
    );
    await page.addInitScript({
      content: `document.addEventListener("securitypolicyviolation", (event) =>
        window.reportCspViolation(location.href, event.violatedDirective, event.blockedURI));`,
    });
  });

  after(async () => {
    await browser?.close();
    await running?.close();
  });

  test("list my todos shows the table app; ticking a todo completes it after approval", async () => {
    await page.goto(running.url);
    await page.getByLabel("Email").fill("apps@example.com");
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.getByRole("heading", { name: "Your todos" }).waitFor();
    await api("/todos", { method: "POST", body: { title: "buy milk", priority: 2 } });
    await api("/todos", { method: "POST", body: { title: "call mom", priority: 1 } });

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

    assert.deepEqual(problems, [], "no script error, CSP violation, failed or foreign request");
  });
});
