/**
 * GET /docs renders in a real browser (Debian's chromium, driven by playwright-core): the
 * example app's operations appear, every request stays on this server (no CDN, works offline),
 * and nothing trips the page's Content-Security-Policy. `UPDATE_SCREENSHOTS=1` refreshes the
 * screenshot in docs/terreno-app.md.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { createExampleApp } from "../../example-backend/app.js";
import { browserSkipReason, launchChromium } from "../helpers/browser.js";
import { type Listening, listen } from "../helpers/mcpClients.js";
import { JWT_SECRET } from "../helpers/restApp.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

describe("API docs in a browser", { skip: browserSkipReason() }, () => {
  let server: Listening;
  let browser: Browser;

  before(async () => {
    server = await listen(createExampleApp({ jwtSecret: JWT_SECRET, env: {} }).build());
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test("/docs renders the operations from this server alone", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const foreign: string[] = [];
    const failed: string[] = [];
    const consoleErrors: string[] = [];
    page.on("request", (req) => {
      const { hostname } = new URL(req.url());
      if (req.url().startsWith("data:")) return;
      if (hostname !== "127.0.0.1" && hostname !== "localhost") foreign.push(req.url());
    });
    page.on("requestfailed", (req) => {
      failed.push(`${req.url()} (${req.failure()?.errorText})`);
    });
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });

    const response = await page.goto(`${server.url}/docs`);
    assert.equal(response?.status(), 200);
    assert.equal(new URL(page.url()).pathname, "/docs/");
    // Swagger UI fetches /openapi.json and renders one block per operation.
    const todos = page.locator(".opblock-summary-path", { hasText: /^\/todos$/ }).first();
    await todos.waitFor({ timeout: 20_000 });
    for (const path of ["/todos/{id}", "/foods", "/auth/login"]) {
      assert.ok(
        (await page.locator(`.opblock-summary-path[data-path="${path}"]`).count()) > 0,
        `${path} is listed`,
      );
    }
    assert.match((await page.locator(".info .title").textContent()) ?? "", /terreno-example/);

    const temp = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "api-docs-")), "api-docs.png");
    await page.screenshot({ path: temp });
    assert.ok(fs.statSync(temp).size > 10_000, "a non-trivial screenshot");
    // The guide's copy is refreshed on request only, so a test run leaves the tree clean.
    if (process.env.UPDATE_SCREENSHOTS === "1") {
      const readmeImage = path.join(root, "docs/images/api-docs.png");
      fs.mkdirSync(path.dirname(readmeImage), { recursive: true });
      fs.copyFileSync(temp, readmeImage);
    }

    assert.deepEqual(foreign, [], "no request leaves this server");
    assert.deepEqual(failed, [], "no request failed");
    assert.deepEqual(
      consoleErrors.filter((text) => /Content Security Policy|Refused to/i.test(text)),
      [],
      "nothing is blocked by the page's CSP",
    );
    await page.close();
  });
});
