/**
 * The example app with its page, served to a real chromium (playwright-core), for the browser
 * suites: `useExamplePage()` starts both before a suite's tests and collects every problem the
 * page shows (script errors, console errors, CSP violations, failed or foreign requests), so a
 * test ends with `assert.deepEqual(problems, [])`.
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { after, before } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createExampleApp } from "../../example-backend/app.js";
import { ensureFrontendBuilt } from "../../example-frontend/build.js";
import type { RunningServer } from "../../src/index.js";
import { launchChromium } from "./browser.js";
import { JWT_SECRET } from "./restApp.js";

export const SESSION_KEY = "terreno-example.session";

interface Row {
  id: string;
  [field: string]: unknown;
}

export interface ExamplePage {
  readonly url: string;
  readonly page: Page;
  /** Every problem seen so far, in words. */
  readonly problems: string[];
  /** A fresh page (new context: signed out) with the same listeners; the old one is closed. */
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
  /** Signs up from the sign-in form and waits for the chat page. */
  signUp(email: string): Promise<void>;
  /** Sends a chat message from the message box. */
  say(text: string): Promise<void>;
  /** GET `route` as the page's signed-in user, with the token the page keeps. */
  api(route: string): Promise<Row[]>;
  /** `METHOD route` with a JSON body as the page's user; the answer's status and body. */
  call(method: string, route: string, body?: unknown): Promise<{ status: number; body: unknown }>;
}

export interface ExamplePageOptions {
  viewport?: { width: number; height: number };
  /** Run the example's OAuth sign-in for MCP clients (its URL is known before it starts). */
  oauth?: boolean;
}

/** A port free right now, so the server's URL (the OAuth issuer) is known before it listens. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

function watch(page: Page, origin: () => string, problems: string[]): void {
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    // The browser logs each 401 it receives (a stale token is refreshed and retried).
    if (message.type() === "error" && !/status of 401/.test(message.text())) {
      problems.push(`console: ${message.text()}`);
    }
  });
  page.on("requestfailed", (req) => {
    // Stopping or leaving a stream cancels its request; that is not a failure of the page.
    if (req.failure()?.errorText === "net::ERR_ABORTED" && new URL(req.url()).pathname === "/chat")
      return;
    problems.push(`request failed: ${req.url()} (${req.failure()?.errorText})`);
  });
  page.on("request", (req) => {
    // An MCP App view is a srcdoc frame: its document is no request to anyone.
    const url = req.url();
    if (!url.startsWith(origin()) && !url.startsWith("data:") && url !== "about:srcdoc") {
      problems.push(`foreign request: ${url}`);
    }
  });
}

async function watchCsp(context: BrowserContext, problems: string[]): Promise<void> {
  // Every Content-Security-Policy violation, reported from inside the page. zod probes whether
  // eval works and falls back when it does not: that probe is the one expected report.
  await context.exposeFunction("reportCspViolation", (directive: string, blocked: string) => {
    if (blocked !== "eval") problems.push(`CSP violation: ${directive} blocked ${blocked}`);
  });
  await context.addInitScript({
    content: `document.addEventListener("securitypolicyviolation", (event) =>
      window.reportCspViolation(event.violatedDirective, event.blockedURI));`,
  });
}

export function useExamplePage(options: ExamplePageOptions = {}): ExamplePage {
  let running: RunningServer | undefined;
  let browser: Browser | undefined;
  let context: BrowserContext | undefined;
  let current: Page | undefined;
  const problems: string[] = [];
  const origin = () => running?.url ?? "";

  async function newPage(viewport = options.viewport ?? { width: 1280, height: 800 }) {
    await context?.close();
    if (!browser) throw new Error("the browser is not started yet");
    context = await browser.newContext({ viewport });
    await watchCsp(context, problems);
    current = await context.newPage();
    watch(current, origin, problems);
    return current;
  }

  before(async () => {
    const dir = await ensureFrontendBuilt((message) => process.stderr.write(`${message}\n`));
    const port = options.oauth ? await freePort() : 0;
    const publicUrl = options.oauth ? `http://127.0.0.1:${port}` : undefined;
    running = await createExampleApp({
      jwtSecret: JWT_SECRET,
      env: {},
      frontendDir: dir,
      publicUrl,
      // A scripted person clicks faster than anyone: restoreChat.test.ts's session sends its
      // 11th chat request (messages and approvals) within 10 s of the first on a quick machine,
      // and the default limit (10 per 10 s) answered it 429, so the test passed only when the
      // machine was slow. The limit itself is tested in test/chat/chat.test.ts.
      chatRateLimit: { points: 1000 },
    }).start({
      port,
      host: "127.0.0.1",
      handleSignals: false,
    });
    browser = await launchChromium();
    await newPage();
  });

  after(async () => {
    await browser?.close();
    await running?.close();
  });

  const page = () => {
    if (!current) throw new Error("the page is not open yet");
    return current;
  };

  async function token(): Promise<string> {
    // A string expression: this file is compiled without the DOM's types.
    const raw = (await page().evaluate(`localStorage.getItem(${JSON.stringify(SESSION_KEY)})`)) as
      | string
      | null;
    const { token: value } = JSON.parse(raw ?? "{}") as { token?: string };
    assert.ok(value, "the page keeps an access token");
    return value;
  }

  async function call(method: string, route: string, body?: unknown) {
    const response = await fetch(`${origin()}${route}`, {
      method,
      headers: {
        Authorization: `Bearer ${await token()}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
  }

  return {
    get url() {
      return origin();
    },
    get page() {
      return page();
    },
    problems,
    newPage,
    async signUp(email) {
      const p = page();
      await p.goto(origin());
      await p.getByLabel("Email").fill(email);
      await p.getByLabel("Password").fill("correct horse battery");
      await p.getByRole("button", { name: "Sign up" }).click();
      await p.getByRole("textbox", { name: "Message" }).waitFor();
    },
    async say(text) {
      const box = page().getByRole("textbox", { name: "Message" });
      await box.fill(text);
      await box.press("Enter");
    },
    async api(route) {
      const { status, body } = await call("GET", route);
      assert.equal(status, 200, `GET ${route}`);
      return (body as { data: Row[] }).data;
    },
    call,
  };
}
