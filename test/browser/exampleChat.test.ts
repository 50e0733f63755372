/**
 * The example's web page in a real browser (Debian's chromium, driven by playwright-core),
 * against the example app with its offline demo model and a real database: sign up, a write
 * that waits for approval and runs once approved, a write that is denied and writes nothing,
 * the conversation back after a reload, thumbs up, then rename and delete from the sidebar. The
 * REST API confirms each change.
 *
 * The page is built first when `example-frontend/dist` is missing (a fresh clone), as
 * `npm run example` does. `UPDATE_SCREENSHOTS=1` refreshes the README's screenshot.
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

useTestDatabase("example_chat_browser");

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SCREENSHOT = path.join(REPO_ROOT, "docs/images/example-chat.png");
const SESSION_KEY = "terreno-example.session";

interface Row {
  id: string;
  [field: string]: unknown;
}

// Environment-dependent, not a capability of ours: a machine without chromium skips, saying
// why; CI (.ci/run) installs it and never skips, so a missing browser fails there.
describe("the example's chat page in a browser", { skip: browserSkipReason() }, () => {
  let running: RunningServer;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  /** `METHOD path` of every 401 answer and of every token refresh the page made. */
  const unauthorized: string[] = [];
  const refreshes: string[] = [];

  /** GET `route` as the signed-in page's user, with the token the page keeps. */
  async function api(route: string): Promise<Row[]> {
    // A string expression: this file is compiled without the DOM's types.
    const raw = (await page.evaluate(`localStorage.getItem(${JSON.stringify(SESSION_KEY)})`)) as
      | string
      | null;
    const { token } = JSON.parse(raw ?? "{}") as { token?: string };
    assert.ok(token, "the page keeps an access token");
    const response = await fetch(`${running.url}${route}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    assert.equal(response.status, 200, `GET ${route}`);
    return ((await response.json()) as { data: Row[] }).data;
  }

  /** Sends a chat message from the page's message box. */
  async function say(text: string): Promise<void> {
    const box = page.getByRole("textbox", { name: "Message" });
    await box.fill(text);
    await box.press("Enter");
  }

  /**
   * The README's picture: an approved call done, a second one waiting for approval, the todo
   * in the panel. Written on request, or when missing, so an ordinary run leaves the tree clean.
   */
  async function screenshot(): Promise<void> {
    const temp = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "example-chat-")), "shot.png");
    await page.screenshot({ path: temp });
    assert.ok(fs.statSync(temp).size > 10_000, "a non-trivial screenshot");
    if (process.env.UPDATE_SCREENSHOTS === "1" || !fs.existsSync(SCREENSHOT)) {
      fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
      fs.copyFileSync(temp, SCREENSHOT);
    }
  }

  before(async () => {
    const dir = await ensureFrontendBuilt((message) => process.stderr.write(`${message}\n`));
    running = await createExampleApp({ jwtSecret: JWT_SECRET, env: {}, frontendDir: dir }).start({
      port: 0,
      host: "127.0.0.1",
      handleSignals: false,
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    // Anything the page could not load, any script error, any request leaving this server.
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      // The browser logs each 401 it receives; those are counted below instead.
      if (message.type() === "error" && !/status of 401/.test(message.text())) {
        problems.push(`console: ${message.text()}`);
      }
    });
    page.on("response", (response) => {
      const { pathname } = new URL(response.url());
      const call = `${response.request().method()} ${pathname}`;
      if (response.status() === 401) unauthorized.push(call);
      if (pathname === "/auth/refresh_token") refreshes.push(call);
    });
    page.on("requestfailed", (req) => {
      // Stopping a finished stream's reader can cancel it; that is not a failure of the page.
      if (req.failure()?.errorText === "net::ERR_ABORTED" && req.url().endsWith("/chat")) return;
      problems.push(`request failed: ${req.url()} (${req.failure()?.errorText})`);
    });
    // Every Content-Security-Policy violation, reported from inside the page. zod probes whether
    // eval works and falls back when it does not: that probe is the one expected report.
    await page.exposeFunction("reportCspViolation", (directive: string, blocked: string) => {
      if (blocked !== "eval") problems.push(`CSP violation: ${directive} blocked ${blocked}`);
    });
    await page.addInitScript({
      content: `document.addEventListener("securitypolicyviolation", (event) =>
        window.reportCspViolation(event.violatedDirective, event.blockedURI));`,
    });
    page.on("request", (req) => {
      if (!req.url().startsWith(running.url) && !req.url().startsWith("data:")) {
        problems.push(`foreign request: ${req.url()}`);
      }
    });
  });

  after(async () => {
    await browser?.close();
    await running?.close();
  });

  test("sign up, approve a write, deny one, reload with a stale token, thumbs up, rename, delete", async () => {
    // 1. Sign up.
    await page.goto(running.url);
    await page.getByLabel("Email").fill("reader@example.com");
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.getByRole("heading", { name: "Your todos" }).waitFor();
    await page.getByText("Offline demo (rule-based, not an LLM)").waitFor();

    // 2. A write waits for approval; approved, it runs and the todo appears in the panel.
    await say("add a todo to buy milk tomorrow");
    const createCard = page.getByRole("region", { name: "Tool call todos_create" });
    const ask = createCard.getByRole("group", { name: "Approve todos_create?" });
    await ask.waitFor();
    assert.deepEqual(await api("/todos"), [], "nothing is written before the approval");
    await ask.getByRole("button", { name: "Approve" }).click();
    await page.getByText("Added “buy milk”").waitFor();
    const todoList = page.getByRole("list", { name: "Todo list" });
    await todoList.getByText("buy milk", { exact: true }).waitFor();
    await createCard.getByText("Done").waitFor();
    const afterApprove = await api("/todos");
    assert.deepEqual(
      afterApprove.map((todo) => todo.title),
      ["buy milk"],
    );
    assert.ok(afterApprove[0]?.dueDate, "tomorrow became a due date");

    // 3. A second write, denied: nothing is written.
    await say("add a todo to call mom");
    const second = page.getByRole("group", { name: "Approve todos_create?" });
    await second.waitFor();
    // The reply has ended (Send is back): the call waits for the person, not for the stream.
    await page.getByRole("button", { name: "Send" }).waitFor();
    await page.getByRole("textbox", { name: "Message" }).blur();
    await screenshot();
    await second.getByRole("button", { name: "Deny" }).click();
    await page.getByText("Okay, I did not do that").waitFor();
    await page.getByText("Denied: nothing was run").waitFor();
    assert.deepEqual(
      (await api("/todos")).map((todo) => todo.title),
      ["buy milk"],
      "the denied call wrote nothing",
    );

    // 4. Reload: the conversation is still in the sidebar, open, with its messages.
    const [conversation] = await api("/chat/conversations");
    assert.ok(conversation, "the conversation is stored");
    assert.equal(new URL(page.url()).searchParams.get("c"), conversation.id);
    assert.deepEqual(unauthorized, [], "no 401 while the token is good");
    // The access token has gone bad meanwhile (as an expired one would): the page's first
    // calls get 401s, spend the refresh token once between them, and retry.
    await page.evaluate(`(() => {
      const key = ${JSON.stringify(SESSION_KEY)};
      const session = JSON.parse(localStorage.getItem(key));
      localStorage.setItem(key, JSON.stringify({ ...session, token: "expired" }));
    })()`);
    await page.reload();
    const sidebar = page.getByRole("navigation", { name: "Conversations" });
    const current = sidebar.getByRole("button", {
      name: "add a todo to buy milk tomorrow",
      exact: true,
    });
    await current.waitFor();
    assert.equal(await current.getAttribute("aria-current"), "page");
    const log = page.getByRole("log", { name: "Messages" });
    await log.getByText("add a todo to call mom").waitFor();
    await log.getByText("Added “buy milk”").waitFor();
    await log.getByText("Denied: nothing was run").waitFor();
    await todoList.getByText("buy milk", { exact: true }).waitFor();
    const renewed = (await page.evaluate(
      `localStorage.getItem(${JSON.stringify(SESSION_KEY)})`,
    )) as string;
    assert.notEqual(JSON.parse(renewed).token, "expired", "the page refreshed its token");
    assert.ok(unauthorized.length >= 2, `the first calls got 401s: ${unauthorized.join(", ")}`);
    // Refresh tokens rotate and a spent one revokes its family: one refresh for them all.
    assert.deepEqual(refreshes, ["POST /auth/refresh_token"]);

    // 5. Thumbs up on the first answer: the feedback is stored for that message.
    const answer = log.getByRole("article", { name: "Assistant message" }).first();
    await answer.getByRole("button", { name: "Good answer" }).click();
    await answer.getByText("Thanks for the feedback.").waitFor();
    assert.equal(
      await answer.getByRole("button", { name: "Good answer" }).getAttribute("aria-pressed"),
      "true",
    );
    const feedback = await api("/chat/feedback");
    assert.equal(feedback.length, 1);
    assert.equal(feedback[0]?.rating, "up");
    assert.equal(feedback[0]?.conversationId, conversation.id);

    // 6. Rename the conversation from the sidebar (PATCH title).
    await sidebar.getByRole("button", { name: "Rename add a todo to buy milk tomorrow" }).click();
    const title = sidebar.getByRole("textbox", { name: "Conversation title" });
    await title.fill("Groceries");
    await title.press("Enter");
    await sidebar.getByRole("button", { name: "Groceries", exact: true }).waitFor();
    assert.deepEqual(
      (await api("/chat/conversations")).map((row) => row.title),
      ["Groceries"],
    );

    // 7. A new chat, then delete the old conversation (it asks first).
    await sidebar.getByRole("button", { name: "New chat" }).click();
    await log.getByText("Ask the assistant to work on your todos").waitFor();
    assert.equal(new URL(page.url()).searchParams.get("c"), null);
    await sidebar.getByRole("button", { name: "Delete Groceries" }).click();
    await sidebar.getByRole("button", { name: "Delete", exact: true }).click();
    await sidebar.getByText("No conversations yet.").waitFor();
    assert.deepEqual(await api("/chat/conversations"), []);

    assert.deepEqual(problems, [], "no script error, CSP violation, failed or foreign request");
  });
});
