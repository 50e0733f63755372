/**
 * The example page's layout in chromium (issue 23.4): at 390×844 no screen scrolls sideways, the
 * composer stays at the bottom and the conversations and todos open from buttons; at 1280×800
 * the three columns stay; a sidebar title shows in full on hover (title) and on keyboard focus;
 * the composer counts characters near the chat plugin's limit and will not send past it.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Locator, Page } from "playwright-core";
import { browserSkipReason } from "../helpers/browser.js";
import { useTestDatabase } from "../helpers/database.js";
import { useExamplePage } from "../helpers/examplePage.js";

useTestDatabase("example_layout_browser");

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/** Nothing on the page is wider than the viewport: no sideways scroll. */
async function assertFitsWidth(page: Page, screen: string): Promise<void> {
  const { scrollWidth, innerWidth } = (await page.evaluate(
    "({scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth})",
  )) as { scrollWidth: number; innerWidth: number };
  assert.ok(
    scrollWidth <= innerWidth,
    `${screen}: the page is ${scrollWidth} px wide in a ${innerWidth} px viewport`,
  );
}

/** The message box's form ends at the bottom edge of the viewport, and the page itself does not scroll. */
async function assertComposerAtBottom(page: Page, screen: string): Promise<void> {
  const composer = page.getByRole("textbox", { name: "Message" }).locator("xpath=ancestor::form");
  const box = await composer.boundingBox();
  assert.ok(box, `${screen}: the composer is shown`);
  const height = page.viewportSize()?.height ?? 0;
  assert.ok(
    Math.abs(box.y + box.height - height) <= 1,
    `${screen}: the composer ends at ${box.y + box.height} px, the viewport at ${height} px`,
  );
  const scrollHeight = (await page.evaluate("document.documentElement.scrollHeight")) as number;
  assert.ok(scrollHeight <= height, `${screen}: the page is ${scrollHeight} px tall`);
}

async function assertInsideViewport(page: Page, element: Locator, what: string): Promise<void> {
  const box = await element.boundingBox();
  const width = page.viewportSize()?.width ?? 0;
  assert.ok(box, `${what} is shown`);
  assert.ok(
    box.x >= 0 && box.x + box.width <= width,
    `${what} spans ${box.x}..${box.x + box.width}`,
  );
}

/** The (only) sidebar title's scrollWidth, clientWidth and height. */
async function measureTitle(page: Page): Promise<[number, number, number]> {
  return (await page.evaluate(`(() => {
    const el = document.querySelector('nav[aria-label="Conversations"] .conversation .title');
    return [el.scrollWidth, el.clientWidth, el.offsetHeight];
  })()`)) as [number, number, number];
}

describe("the example page's layout", { skip: browserSkipReason() }, () => {
  // With OAuth on, as `npm run example` runs it: the account menu lists connected apps.
  const ex = useExamplePage({ viewport: PHONE, oauth: true });

  test("at 390×844: no screen scrolls sideways, the composer is at the bottom, drawers open from buttons", async () => {
    const page = ex.page;
    // Sign-in, and sign-in with an error shown.
    await page.goto(ex.url);
    await page.getByRole("button", { name: "Sign up" }).waitFor();
    await assertFitsWidth(page, "sign-in");
    await page.getByLabel("Email").fill("nobody-with-a-rather-long-address@example.com");
    await page.getByLabel("Password").fill("wrong password");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("alert").waitFor();
    await assertFitsWidth(page, "sign-in with an error");

    // The empty chat.
    await ex.signUp("phone-user-with-a-long-address@example.com");
    const log = page.getByRole("log", { name: "Messages" });
    await log.getByText("Ask the assistant to work on your todos").waitFor();
    await assertFitsWidth(page, "empty chat");
    await assertComposerAtBottom(page, "empty chat");
    await assertInsideViewport(page, page.getByRole("button", { name: "Sign out" }), "Sign out");
    // The long email shrinks (ellipsis, full on hover) so it shares a line with Sign out.
    const account = page.getByRole("button", {
      name: "phone-user-with-a-long-address@example.com",
    });
    const [accountBox, signOutBox] = await Promise.all([
      account.boundingBox(),
      page.getByRole("button", { name: "Sign out" }).boundingBox(),
    ]);
    assert.ok(
      accountBox && signOutBox && Math.abs(accountBox.y - signOutBox.y) < 8,
      `the email and Sign out share a line (${accountBox?.y} vs ${signOutBox?.y})`,
    );
    // The account menu opens inside the screen, and closes again.
    await account.click();
    const panel = page.getByRole("region", { name: "Account" });
    await panel.waitFor();
    await assertInsideViewport(page, panel, "the account panel");
    await assertFitsWidth(page, "account panel");
    await account.click();
    await panel.waitFor({ state: "detached" });
    const badge = page.getByTestId("model-label");
    const badgeBox = await badge.boundingBox();
    assert.ok(
      badgeBox && badgeBox.height < 30,
      `the model badge is one line (${badgeBox?.height} px)`,
    );
    await assertInsideViewport(page, badge, "the model badge");
    // Conversations and todos are drawers, closed until asked for.
    const sidebar = page.getByRole("navigation", { name: "Conversations" });
    const todos = page.getByRole("complementary", { name: "Todos" });
    assert.equal(await sidebar.isVisible(), false, "the conversations start closed");
    assert.equal(await todos.isVisible(), false, "the todos start closed");

    // A long conversation: a long title with an unbroken word, tool cards, a code block, an app.
    const word = "supercalifragilisticexpialidocious".repeat(3);
    await ex.say(`add a todo to buy ${word} milk and bread and cheese tomorrow`);
    const create = page.getByRole("region", { name: "Tool call todos_create" });
    await create.getByRole("button", { name: "Approve" }).click();
    await create.getByText("Done").waitFor();
    await assertFitsWidth(page, "a tool card");
    await ex.say("how do I connect Claude Code?");
    await log.locator(".markdown pre code").first().waitFor();
    await assertFitsWidth(page, "a code block");
    await ex.say("list my todos");
    const frame = page.frameLocator('iframe[title="todos_list app"]');
    await frame.getByRole("cell", { name: new RegExp(`^buy ${word}`) }).waitFor();
    await assertFitsWidth(page, "an MCP app frame");
    for (const text of ["list my todos", "hello", "what can you do?"]) {
      await ex.say(text);
      await page.getByRole("button", { name: "Send" }).waitFor();
    }
    await assertFitsWidth(page, "a long conversation");
    await assertComposerAtBottom(page, "a long conversation");

    // The conversations drawer opens from its button, shows the (long) title, and closes.
    const openConversations = page.getByRole("button", { name: "Conversations" });
    assert.equal(await openConversations.getAttribute("aria-expanded"), "false");
    await openConversations.click();
    await sidebar.waitFor();
    assert.equal(await openConversations.getAttribute("aria-expanded"), "true");
    const title = sidebar.getByRole("button", { name: /^add a todo to buy/ });
    await title.waitFor();
    await assertInsideViewport(page, sidebar, "the conversations drawer");
    await assertFitsWidth(page, "the conversations drawer");
    await page.keyboard.press("Escape");
    await sidebar.waitFor({ state: "hidden" });
    assert.equal(
      await page.evaluate("document.activeElement?.getAttribute('aria-controls')"),
      await openConversations.getAttribute("aria-controls"),
      "Escape gives the focus back to the button",
    );
    // Opening a conversation from the drawer closes it.
    await openConversations.click();
    await title.click();
    await sidebar.waitFor({ state: "hidden" });
    await log.getByText("what can you do?").waitFor();

    // The todos drawer opens from its button, lists the todo, and closes from its own button.
    const openTodos = page.getByRole("button", { name: "Todos", exact: true });
    await openTodos.click();
    await todos
      .getByRole("list", { name: "Todo list" })
      .getByText(word, { exact: false })
      .waitFor();
    await assertInsideViewport(page, todos, "the todos drawer");
    await assertFitsWidth(page, "the todos drawer");
    await todos.getByRole("button", { name: "Close" }).click();
    await todos.waitFor({ state: "hidden" });

    // After a reload, the same conversation.
    await page.reload();
    await log.getByText("what can you do?").waitFor();
    await assertFitsWidth(page, "a reloaded conversation");
    await assertComposerAtBottom(page, "a reloaded conversation");

    assert.deepEqual(ex.problems, [], "no script error, CSP violation, failed or foreign request");
  });

  test("at 1280×800 the three columns stay; a sidebar title shows in full on hover and on focus", async () => {
    const page = await ex.newPage(DESKTOP);
    await ex.signUp("desktop@example.com");
    const sidebar = page.getByRole("navigation", { name: "Conversations" });
    const todos = page.getByRole("complementary", { name: "Todos" });
    // 15rem and 17rem of a 15 px root, beside the chat; no drawer buttons.
    assert.equal((await sidebar.boundingBox())?.width, 225);
    assert.equal((await todos.boundingBox())?.width, 255);
    assert.equal(await page.getByRole("button", { name: "Conversations" }).isVisible(), false);
    assert.equal(await page.getByRole("button", { name: "Todos", exact: true }).isVisible(), false);
    await assertComposerAtBottom(page, "desktop");

    const long = "add a todo to plan the summer holiday with the whole family";
    await ex.say(long);
    await page
      .getByRole("region", { name: "Tool call todos_create" })
      .getByRole("button", { name: "Approve" })
      .click();
    const title = sidebar.getByRole("button", { name: long, exact: true });
    await title.waitFor();
    // Cut to one line at rest, with the whole title as its tooltip.
    assert.equal(await title.getAttribute("title"), long);
    const [scrollWidth, clientWidth, restHeight] = await measureTitle(page);
    assert.ok(scrollWidth > clientWidth, "the title is cut at rest");
    // Focused from the keyboard, the whole title is shown.
    await sidebar.getByRole("button", { name: "New chat" }).focus();
    await page.keyboard.press("Tab");
    assert.equal(
      await page.evaluate("document.activeElement?.getAttribute('title')"),
      long,
      "the title has the focus",
    );
    const [focusedScroll, focusedClient, focusedHeight] = await measureTitle(page);
    assert.ok(focusedScroll <= focusedClient, "nothing is cut while focused");
    assert.ok(focusedHeight > restHeight, "the title wraps onto more lines");
    assert.equal(await title.textContent(), long);

    assert.deepEqual(ex.problems, [], "no script error, CSP violation, failed or foreign request");
  });

  test("the composer counts characters near the limit of GET /chat/info and will not send past it", async () => {
    const page = ex.page;
    const { body } = await ex.call("GET", "/chat/info");
    const limit = (body as { data: { maxMessageLength: number } }).data.maxMessageLength;
    assert.equal(limit, 8000, "the example keeps the default");
    const posts: string[] = [];
    page.on("request", (req) => {
      if (req.method() === "POST" && new URL(req.url()).pathname === "/chat") posts.push(req.url());
    });
    await page.getByRole("button", { name: "New chat" }).click();
    const box = page.getByRole("textbox", { name: "Message" });
    const send = page.getByRole("button", { name: "Send" });
    const counter = page.getByTestId("message-length");

    await box.fill("list my todos");
    assert.equal(await counter.isVisible(), false, "no counter far from the limit");

    await box.fill("a".repeat(limit - 10));
    await counter.waitFor();
    assert.equal(await counter.textContent(), "7,990 / 8,000");
    assert.equal(await send.isEnabled(), true);

    await box.fill("a".repeat(limit + 1));
    assert.equal(await counter.textContent(), "8,001 / 8,000");
    assert.equal(await send.isEnabled(), false, "Send is off past the limit");
    assert.equal(await box.getAttribute("aria-invalid"), "true");
    const why = page.getByText(
      "1 character too many: a message may have at most 8,000 characters.",
    );
    await why.waitFor();
    // The message box names the reason.
    const describedBy = String(await box.getAttribute("aria-describedby"));
    assert.equal(
      await page.evaluate(`document.getElementById(${JSON.stringify(describedBy)})?.textContent`),
      await why.textContent(),
    );
    await box.press("Enter");
    assert.deepEqual(posts, [], "nothing was sent");

    await box.fill("a".repeat(limit));
    assert.equal(await send.isEnabled(), true, "exactly the limit may be sent");
    assert.equal(await box.getAttribute("aria-invalid"), null);
    await why.waitFor({ state: "detached" });

    assert.deepEqual(ex.problems, [], "no script error, CSP violation, failed or foreign request");
  });
});
