/**
 * The example's web page in a real browser (Debian's chromium, driven by playwright-core),
 * against the example app with its offline demo model and a real database: sign up, a write
 * that waits for approval and runs once approved, a write that is denied and writes nothing,
 * the conversation back after a reload, thumbs up, then rename and delete from the sidebar. The
 * REST API confirms each change.
 *
 * `UPDATE_SCREENSHOTS=1` refreshes the README's screenshots (the page, and the same at phone
 * width).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { browserSkipReason } from "../helpers/browser.js";
import { useTestDatabase } from "../helpers/database.js";
import { SESSION_KEY, useExamplePage } from "../helpers/examplePage.js";

useTestDatabase("example_chat_browser");

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SCREENSHOT = path.join(REPO_ROOT, "docs/images/example-chat.png");
const PHONE_SCREENSHOT = path.join(REPO_ROOT, "docs/images/example-chat-phone.png");
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

// Environment-dependent, not a capability of ours: a machine without chromium skips, saying
// why; CI (.ci/run) installs it and never skips, so a missing browser fails there.
describe("the example's chat page in a browser", { skip: browserSkipReason() }, () => {
  const ex = useExamplePage({ viewport: DESKTOP });
  const { api, say } = ex;

  /**
   * The README's pictures: an approved call done, a second one waiting for approval, the todo
   * in the panel; then the same page at phone width. Written on request, or when missing, so an
   * ordinary run leaves the tree clean.
   */
  async function screenshots(): Promise<void> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "example-chat-"));
    const shots: [string, string, { width: number; height: number }][] = [
      [path.join(dir, "shot.png"), SCREENSHOT, DESKTOP],
      [path.join(dir, "phone.png"), PHONE_SCREENSHOT, PHONE],
    ];
    for (const [temp, target, viewport] of shots) {
      await ex.page.setViewportSize(viewport);
      await ex.page.screenshot({ path: temp });
      assert.ok(fs.statSync(temp).size > 10_000, "a non-trivial screenshot");
      if (process.env.UPDATE_SCREENSHOTS === "1" || !fs.existsSync(target)) {
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.copyFileSync(temp, target);
      }
    }
    await ex.page.setViewportSize(DESKTOP);
  }

  test("sign up, approve a write, deny one, reload with a stale token, thumbs up, rename, delete", async () => {
    const page = ex.page;
    /** `METHOD path` of every 401 answer and of every token refresh the page made. */
    const unauthorized: string[] = [];
    const refreshes: string[] = [];
    page.on("response", (response) => {
      const { pathname } = new URL(response.url());
      const call = `${response.request().method()} ${pathname}`;
      if (response.status() === 401) unauthorized.push(call);
      if (pathname === "/auth/refresh_token") refreshes.push(call);
    });
    // 1. Sign up.
    await page.goto(ex.url);
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
    await screenshots();
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

    assert.deepEqual(ex.problems, [], "no script error, CSP violation, failed or foreign request");
  });
});
