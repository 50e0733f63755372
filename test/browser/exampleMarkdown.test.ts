/**
 * The example page renders the assistant's Markdown (react-markdown + remark-gfm) under its strict
 * CSP: a search_docs answer from the demo model shows a bold heading and a code block; a stored
 * reply with lists, a table, links, raw HTML, a `javascript:` link and an image renders safely;
 * a tool error reads as one sentence, said once.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ChatMessage, Conversation } from "../../src/chat/models.js";
import { encodeParts } from "../../src/chat/storedParts.js";
import { browserSkipReason } from "../helpers/browser.js";
import { useTestDatabase } from "../helpers/database.js";
import { SESSION_KEY, useExamplePage } from "../helpers/examplePage.js";

useTestDatabase("example_markdown_browser");

const RICH = [
  "Here is **bold**, *emphasis* and `inline code`.",
  "",
  "1. first",
  "2. second",
  "",
  "| tool | writes |",
  "| --- | --- |",
  "| todos_list | no |",
  "| todos_create | yes |",
  "",
  "See [the docs](https://example.com/docs) and https://example.com/auto.",
  "",
  '<script>window.injected = true</script><b onclick="x()">raw html</b>',
  "",
  "[click me](javascript:window.injected=true)",
  "",
  "![a picture](https://example.com/picture.png)",
].join("\n");

describe("Markdown in the example's chat page", { skip: browserSkipReason() }, () => {
  const ex = useExamplePage();

  test("a search_docs answer shows a bold heading and a code block; a tool error is one sentence, once", async () => {
    await ex.signUp("markdown@example.com");
    const log = ex.page.getByRole("log", { name: "Messages" });

    await ex.say("how do I connect Claude Code?");
    const answer = log.getByRole("article", { name: "Assistant message" }).last();
    await answer.getByText("From the docs:").waitFor();
    // The heading is bold (a <strong>, not `**…**` as text); the snippet is a code block.
    const bold = answer.locator(".markdown strong").first();
    assert.equal(await bold.textContent(), "Chat plugin");
    const block = answer.locator(".markdown pre code").first();
    await block.waitFor();
    assert.match(
      String(await block.textContent()),
      /npm install terreno-mcp|import \{ chatPlugin \} from "terreno-mcp\/chat";/,
    );
    const shown = String(await answer.locator(".markdown").textContent());
    assert.doesNotMatch(shown, /\*\*Chat plugin|```/, "no raw asterisks or fences");

    // A write the tool refuses (a title over 200 characters), approved: the error is a sentence,
    // shown once, with no JSON.
    await ex.say(`add a todo to ${"x".repeat(210)}`);
    const card = ex.page.getByRole("region", { name: "Tool call todos_create" });
    await card.getByRole("button", { name: "Approve" }).click();
    await card.getByText("Failed").waitFor();
    const reply = log.getByRole("article", { name: "Assistant message" }).last();
    await reply.getByText("That did not work").waitFor();
    const sentence =
      "Invalid input: title must be at most 200 characters (UTF-16 units: an emoji counts 2).";
    assert.equal(await card.getByRole("status").textContent(), sentence);
    // The reply holds the card and the assistant's text.
    const text = String(await reply.textContent());
    assert.equal(text.split("must be at most 200 characters").length - 1, 1, text);
    assert.doesNotMatch(text, /"error"|validation_failed|\{"/);

    assert.deepEqual(ex.problems, [], "no script error, CSP violation, failed or foreign request");
  });

  test("a stored reply: lists, a table and links render; raw HTML, script links and images run and fetch nothing", async () => {
    const raw = (await ex.page.evaluate(
      `localStorage.getItem(${JSON.stringify(SESSION_KEY)})`,
    )) as string;
    const { userId } = JSON.parse(raw) as { userId: string };
    const conversation = await Conversation.create({ ownerId: userId, title: "Rich reply" });
    const base = { conversationId: conversation._id, ownerId: userId };
    await ChatMessage.create({
      ...base,
      messageId: "rich-question",
      role: "user",
      partsJson: encodeParts([{ type: "text", text: "show me **everything**" }]),
    });
    await ChatMessage.create({
      ...base,
      messageId: "rich-answer",
      role: "assistant",
      partsJson: encodeParts([{ type: "text", text: RICH }]),
    });

    await ex.page.goto(`${ex.url}/?c=${conversation._id}`);
    const answer = ex.page.getByRole("article", { name: "Assistant message" });
    await answer.getByText("Here is").waitFor();
    // The person's own text is shown as typed.
    await ex.page
      .getByRole("article", { name: "Your message" })
      .getByText("show me **everything**")
      .waitFor();

    assert.equal(await answer.locator("strong").first().textContent(), "bold");
    assert.equal(await answer.locator("em").textContent(), "emphasis");
    assert.deepEqual(await answer.locator("ol > li").allTextContents(), ["first", "second"]);
    assert.deepEqual(await answer.locator("table th").allTextContents(), ["tool", "writes"]);
    assert.equal(await answer.locator("table tbody tr").count(), 2);

    const links = answer.getByRole("link");
    const docs = answer.getByRole("link", { name: "the docs" });
    assert.equal(await docs.getAttribute("href"), "https://example.com/docs");
    assert.equal(await docs.getAttribute("target"), "_blank");
    assert.equal(await docs.getAttribute("rel"), "noopener noreferrer");
    const auto = answer.getByRole("link", { name: "https://example.com/auto" });
    assert.equal(await auto.getAttribute("rel"), "noopener noreferrer");
    // The image is a link to it, never fetched; the script link has no href.
    const picture = answer.getByRole("link", { name: "a picture" });
    assert.equal(await picture.getAttribute("href"), "https://example.com/picture.png");
    assert.equal(await answer.locator("img").count(), 0);
    const scriptLink = answer.getByText("click me");
    assert.equal(await scriptLink.getAttribute("href"), "");
    for (const link of await links.all()) {
      assert.doesNotMatch(String(await link.getAttribute("href")), /^javascript:/i);
    }

    // Raw HTML is text: no script ran, no <b> or <script> element was made.
    await answer.getByText('<b onclick="x()">raw html</b>', { exact: false }).waitFor();
    assert.equal(await answer.locator("script, b").count(), 0);
    assert.equal(await ex.page.evaluate("window.injected === undefined"), true);

    assert.deepEqual(ex.problems, [], "no script error, CSP violation, failed or foreign request");
  });
});
