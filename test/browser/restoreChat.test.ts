/**
 * A conversation carries on after a reload (issue 23, "restored after a reload"), in a real
 * browser against the example app with its offline demo model: after an approved write, a denied
 * one and a tool that failed, the person reloads, finds the tool cards with their inputs and
 * their thumbs as they left them, sends another message and gets a reply; a write still waiting
 * for approval is there after a reload, and approving it runs it once; so is a write an MCP App
 * view asked for (only the server holds that one); one left unanswered while the person went on
 * asks no more, and nothing runs. After Stop: resumeChat.test.ts.
 *
 * The tests are one person's session, in order: each goes on from the todos the last one left.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Locator } from "playwright-core";
import { browserSkipReason } from "../helpers/browser.js";
import { useTestDatabase } from "../helpers/database.js";
import { useExamplePage } from "../helpers/examplePage.js";

useTestDatabase("restore_chat_browser");

describe("a conversation restored after a reload", { skip: browserSkipReason() }, () => {
  const ex = useExamplePage();
  const { api, say } = ex;

  const log = () => ex.page.getByRole("log", { name: "Messages" });
  const card = (tool: string) => log().getByRole("region", { name: `Tool call ${tool}` });
  const assistant = (text: string) =>
    log().getByRole("article", { name: "Assistant message" }).filter({ hasText: text });

  const titled = async (title: string) =>
    (await api("/todos")).filter((todo) => todo.title === title).length;

  /** The tool card shows the input the call was made with. */
  async function assertInput(tool: Locator, expected: string): Promise<void> {
    const input = tool.locator(".json").filter({ hasText: "Input" });
    await input.waitFor();
    assert.match((await input.textContent()) ?? "", new RegExp(expected));
  }

  async function assertPressed(reply: Locator, label: string): Promise<void> {
    const button = reply.getByRole("button", { name: label });
    await button.waitFor();
    assert.equal(await button.getAttribute("aria-pressed"), "true", `${label} stays pressed`);
  }

  // Requests the page has open: a person reloads a page that has settled, and a reload that
  // cut off a request (the conversations list refreshed after a reply) would count as a problem.
  let open = 0;
  before(() => {
    ex.page.on("request", () => {
      open += 1;
    });
    const done = () => {
      open -= 1;
    };
    ex.page.on("requestfinished", done);
    ex.page.on("requestfailed", done);
  });

  /** Reloads the open conversation once the page has settled. */
  async function reloadPage(): Promise<void> {
    await ex.page.getByRole("button", { name: "Send" }).waitFor();
    // Bounded: a request that never ends is the page's problem, which the reload then reports.
    for (let waited = 0; open > 0 && waited < 250; waited += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await ex.page.reload();
  }

  /** Reloads the open conversation and waits for its messages to be back. */
  async function reload(lastText: string): Promise<void> {
    await reloadPage();
    await log().getByText(lastText).first().waitFor();
  }

  /** The next message gets a real reply, and the page shows no error. */
  async function carryOn(reply: string): Promise<void> {
    const before = await log().getByRole("article", { name: "Assistant message" }).count();
    await say("list my todos");
    await log()
      .getByRole("article", { name: "Assistant message" })
      .nth(before)
      .filter({ hasText: reply })
      .waitFor();
    await ex.page.getByRole("button", { name: "Send" }).waitFor();
    assert.equal(await ex.page.getByRole("alert").count(), 0, "no error after the reload");
  }

  test("approve a write, thumbs up, reload, send another message and get a reply", async () => {
    await ex.signUp("restorer@example.com");
    await say("add a todo to buy milk tomorrow");
    await card("todos_create")
      .getByRole("group", { name: "Approve todos_create?" })
      .getByRole("button", { name: "Approve" })
      .click();
    const added = assistant("Added “buy milk”");
    await added.getByRole("button", { name: "Good answer" }).click();
    await added.getByText("Thanks for the feedback.").waitFor();
    await ex.page.waitForURL(/\?c=/);

    await reload("Added “buy milk”");
    await card("todos_create").getByText("Done").waitFor();
    await assertInput(card("todos_create"), '"title": "buy milk"');
    await assertPressed(assistant("Added “buy milk”"), "Good answer");
    await carryOn("You have 1 todo");
    assert.deepEqual(ex.problems, []);
  });

  test("after a denied write and after a tool error, reload and carry on", async () => {
    await ex.page.getByRole("button", { name: "New chat" }).click();
    await say("add a todo to call mom");
    await card("todos_create").getByRole("button", { name: "Deny" }).click();
    const denied = assistant("Okay, I did not do that");
    await denied.getByRole("button", { name: "Bad answer" }).click();
    await denied.getByText("Thanks for the feedback.").waitFor();
    await ex.page.waitForURL(/\?c=/);

    await reload("Okay, I did not do that");
    await card("todos_create").getByText("Denied: nothing was run").waitFor();
    await assertInput(card("todos_create"), '"title": "call mom"');
    await assertPressed(assistant("Okay, I did not do that"), "Bad answer");
    await carryOn("You have 1 todo");

    // A tool error: the todo goes away (from another tab, say) while its completion waits.
    await say("complete buy milk");
    const complete = card("todos_complete");
    await complete.getByRole("button", { name: "Approve" }).waitFor();
    const [milk] = await api("/todos");
    assert.ok(milk);
    assert.equal((await ex.call("DELETE", `/todos/${milk.id}`)).status, 204);
    await complete.getByRole("button", { name: "Approve" }).click();
    await assistant("That did not work").waitFor();
    await complete.getByText("Failed").waitFor();

    await reload("That did not work");
    await card("todos_complete").getByText("Failed").waitFor();
    await assertInput(card("todos_complete"), `"id": "${milk.id}"`);
    await carryOn("You have no todos.");
    assert.deepEqual(ex.problems, []);
  });

  test("a write waiting for approval is still there after a reload, and approving runs it once", async () => {
    await ex.page.getByRole("button", { name: "New chat" }).click();
    await say("add a todo to pay rent");
    const ask = card("todos_create").getByRole("group", { name: "Approve todos_create?" });
    await ask.waitFor();
    await ex.page.getByRole("button", { name: "Send" }).waitFor();
    await ex.page.waitForURL(/\?c=/);
    const held = await api("/chat/approvals");
    assert.equal(held.length, 1, "the server holds one request");

    await reloadPage();
    await ask.waitFor();
    await assertInput(card("todos_create"), '"title": "pay rent"');
    await ask.getByRole("button", { name: "Approve" }).click();
    await assistant("Added “pay rent”").waitFor();
    await card("todos_create").getByText("Done").waitFor();
    assert.equal(await titled("pay rent"), 1, "written exactly once");
    assert.deepEqual(await api("/chat/approvals"), [], "nothing is held any more");

    // Reload once more: the call is done, nothing asks again, and the chat carries on.
    await reload("Added “pay rent”");
    await card("todos_create").getByText("Done").waitFor();
    assert.equal(await ask.count(), 0, "nothing asks again");
    await carryOn("pay rent");
    assert.equal(await titled("pay rent"), 1, "still once");
    assert.deepEqual(ex.problems, []);
  });

  test("a write left waiting while the person goes on is not asked again, and nothing runs", async () => {
    await ex.page.getByRole("button", { name: "New chat" }).click();
    await say("add a todo to water the plants");
    const ask = card("todos_create").getByRole("group", { name: "Approve todos_create?" });
    await ask.waitFor();
    await ex.page.waitForURL(/\?c=/);
    await reloadPage();
    await ask.waitFor();

    // Instead of answering, the person asks something else: the AI SDK drops a request left
    // unanswered before the newest user message, so Approve could no longer run anything.
    await carryOn("pay rent");
    await card("todos_create").getByText("Not answered: nothing was run").waitFor();
    assert.equal(await ask.count(), 0, "the old request no longer asks");
    await reload("list my todos");
    await card("todos_create").getByText("Not answered: nothing was run").waitFor();
    assert.equal(await ask.count(), 0, "nor after a reload");
    assert.equal(await titled("water the plants"), 0, "nothing was written");
    assert.deepEqual(await api("/chat/approvals"), [], "the server holds it no more");
    assert.deepEqual(ex.problems, []);
  });

  test("a call an app view asked for is still held after a reload, and approving runs it once", async () => {
    await ex.page.getByRole("button", { name: "New chat" }).click();
    await say("list my todos");
    const app = ex.page.frameLocator('iframe[title="todos_list app"]');
    await app.getByRole("checkbox", { name: "Completed: pay rent" }).check();
    const ask = card("todos_list").getByRole("group", { name: "Approve todos_update?" });
    await ask.waitFor();
    await ex.page.waitForURL(/\?c=/);

    // The view's question goes with the page; the server still holds the call.
    await reloadPage();
    const held = card("todos_update");
    await held.getByRole("group", { name: "Approve todos_update?" }).waitFor();
    await assertInput(held, '"completed": true');
    await held.getByRole("button", { name: "Approve" }).click();
    await held.getByText("Done").waitFor();
    const rent = (await api("/todos")).filter((todo) => todo.title === "pay rent");
    assert.deepEqual(
      rent.map((todo) => todo.completed),
      [true],
    );
    assert.deepEqual(await api("/chat/approvals"), [], "nothing is held any more");
    // The todos panel shows it done (the page reloads its data after a write).
    await ex.page
      .getByRole("list", { name: "Todo list" })
      .locator("li.done")
      .filter({ hasText: "pay rent" })
      .waitFor();

    // Reload again: nothing asks twice, and the chat carries on.
    await reload("list my todos");
    assert.equal(await card("todos_update").count(), 0, "no held call left to show");
    await carryOn("pay rent (done)");
    assert.deepEqual(ex.problems, []);
  });
});
