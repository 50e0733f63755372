/**
 * Replies that survive a reload (issue 23.3), in a real browser (Debian's chromium through
 * playwright-core) against the example app with its demo model slowed to a word every 60 ms:
 * reload in the middle of a reply and see the rest arrive; Stop a reply, see it marked stopped,
 * reload, still marked, send another message and get a reply.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { createExampleApp } from "../../example-backend/app.js";
import { ensureFrontendBuilt } from "../../example-frontend/build.js";
import { createDemoModel } from "../../src/chat/demo.js";
import type { RunningServer } from "../../src/index.js";
import { browserSkipReason, launchChromium } from "../helpers/browser.js";
import { useTestDatabase } from "../helpers/database.js";
import { JWT_SECRET } from "../helpers/restApp.js";

useTestDatabase("resume_chat_browser");

/** The last line of the demo model's help text (the app has docs). */
const HELP_END = "(searches the docs)";

describe("a reply survives a reload", { skip: browserSkipReason() }, () => {
  let running: RunningServer;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  async function say(text: string): Promise<void> {
    const box = page.getByRole("textbox", { name: "Message" });
    await box.fill(text);
    await box.press("Enter");
  }

  const lastAssistant = () => page.getByRole("article", { name: "Assistant message" }).last();

  before(async () => {
    const dir = await ensureFrontendBuilt((message) => process.stderr.write(`${message}\n`));
    running = await createExampleApp({
      jwtSecret: JWT_SECRET,
      env: {},
      frontendDir: dir,
      model: createDemoModel({ wordDelayMs: 60 }),
    }).start({ port: 0, host: "127.0.0.1", handleSignals: false });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  });

  after(async () => {
    await browser?.close();
    await running?.close();
  });

  test("reload in the middle of a reply, then see the rest arrive", async () => {
    await page.goto(running.url);
    await page.getByLabel("Email").fill("resumer@example.com");
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.getByRole("heading", { name: "Your todos" }).waitFor();

    await say("hello there");
    // The first words have arrived, the end has not.
    await lastAssistant()
      .getByText(/I am an offline demo/)
      .waitFor();
    assert.equal(await page.getByText(HELP_END).count(), 0, "the reply is still streaming");
    await page.waitForURL(/\?c=/);
    await page.reload();
    // After the reload: what was said so far, then the rest as it comes.
    await lastAssistant()
      .getByText(/I am an offline demo/)
      .waitFor();
    await lastAssistant().getByText(HELP_END).waitFor({ timeout: 15_000 });
    assert.equal(
      await page.getByRole("article", { name: "Assistant message" }).count(),
      1,
      "one reply, not a copy",
    );
    assert.deepEqual(problems, []);
  });

  test("after Stop, reload, send another message, get a reply", async () => {
    await page.getByRole("button", { name: /new/i }).first().click();
    await say("hello again");
    await lastAssistant()
      .getByText(/I am an offline demo/)
      .waitFor();
    await page.getByRole("button", { name: "Stop" }).click();
    await page.getByText("Stopped: the reply was cut short.").waitFor();
    await page.waitForURL(/\?c=/);
    // Stored as stopped: still marked after a reload, and the reply did not go on.
    await page.waitForTimeout(500);
    await page.reload();
    await page.getByText("Stopped: the reply was cut short.").waitFor();
    await page.waitForTimeout(1000);
    assert.equal(await page.getByText(HELP_END).count(), 0, "the stopped reply did not go on");

    await say("list my todos");
    await lastAssistant().getByText("You have no todos.").waitFor({ timeout: 15_000 });
    assert.deepEqual(problems, []);
  });
});
