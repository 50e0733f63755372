/**
 * The whole MCP authorization flow, end to end, as Claude Code or Cursor run it: the official
 * MCP SDK client (v2) connects to /mcp, gets a 401, discovers the protected-resource and
 * authorization-server metadata, registers itself (RFC 7591), and sends the person to the
 * authorization URL with PKCE S256. A real headless chromium signs in on the server's page and
 * clicks Allow on its consent page; the redirect to the client's loopback URI is caught, the
 * SDK exchanges the code, and `tools/list` and a tool call succeed with the token.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import {
  Client,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import type { Browser } from "playwright-core";
import { browserSkipReason, launchChromium } from "../helpers/browser.js";
import { useTestDatabase } from "../helpers/database.js";
import { MemoryOAuthState } from "./memoryOAuthState.js";
import { PASSWORD, useOAuthApp } from "./oauthApp.js";

useTestDatabase("oauth_browser_flow");

const EMAIL = "browser-flow@example.com";
/**
 * The client's loopback listener, as Claude Code runs one: it receives the browser after
 * consent and hands the callback URL to the test.
 */
async function loopbackListener(): Promise<{ url: string; next: Promise<URL>; close(): void }> {
  let deliver: (url: URL) => void = () => {};
  const next = new Promise<URL>((resolve) => {
    deliver = resolve;
  });
  const server = createServer((req, res) => {
    res.setHeader("Content-Type", "text/html");
    res.end("<p>Connected. You can close this window.</p>");
    deliver(new URL(req.url ?? "/", "http://127.0.0.1"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/oauth/callback`,
    next,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** An in-memory OAuthClientProvider, as a desktop MCP client keeps one per server. */
class MemoryOAuthProvider
  extends MemoryOAuthState<StoredOAuthClientInformation, StoredOAuthTokens>
  implements OAuthClientProvider
{
  constructor(private readonly redirect: string) {
    super();
  }

  get redirectUrl(): string {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    // What Claude Code registers: a public client (no secret) with a loopback redirect URI.
    return {
      client_name: "Terreno browser test",
      redirect_uris: [this.redirect],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
}

describe("MCP OAuth in a real browser", { skip: browserSkipReason() }, () => {
  let browser: Browser;
  // Registered before the app's: the browser closes first.
  after(async () => {
    await browser?.close();
  });
  const server = useOAuthApp({}, EMAIL);
  before(async () => {
    browser = await launchChromium();
  });

  test("discovery, registration, sign-in and consent in chromium, then tools/list and a call", async () => {
    const listener = await loopbackListener();
    const provider = new MemoryOAuthProvider(listener.url);
    const endpoint = new URL(server.mcpUrl);

    // 1. No token: the 401's challenge starts discovery, registration and the redirect.
    const first = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
    await assert.rejects(
      new Client({ name: "terreno-oauth-e2e", version: "1.0.0" }).connect(first),
      (error: unknown) => error instanceof UnauthorizedError,
    );
    assert.ok(provider.client?.client_id, "the client registered itself");
    const authorizationUrl = provider.authorizationUrl;
    assert.ok(authorizationUrl, "the SDK asked to open the authorization URL");
    assert.equal(authorizationUrl.origin, server.url);
    assert.equal(authorizationUrl.searchParams.get("code_challenge_method"), "S256");
    assert.equal(authorizationUrl.searchParams.get("resource"), server.mcpUrl);

    // 2. The person, in a browser: sign in, then Allow; the browser lands on the listener.
    const page = await browser.newPage();
    const blocked: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy|Refused/i.test(message.text())) blocked.push(message.text());
    });
    await page.goto(authorizationUrl.href);
    assert.equal(new URL(page.url()).pathname, "/oauth/login");
    await page.getByLabel("Email").fill(EMAIL);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/oauth\/consent/);
    assert.equal(await page.locator("#client-name").textContent(), "Terreno browser test");
    const scopes = await page.locator("#scopes").textContent();
    assert.match(scopes ?? "", /mcp:read/);
    assert.match(scopes ?? "", /mcp:write/);
    await page.getByRole("button", { name: "Allow", exact: true }).click();
    const callback = await listener.next;
    await page.waitForURL((url) => url.href.startsWith(listener.url));
    assert.match((await page.textContent("body")) ?? "", /Connected/);
    await page.close();
    listener.close();
    assert.ok(callback.searchParams.get("code"), callback.href);
    assert.equal(callback.searchParams.get("iss"), server.url);
    assert.deepEqual(blocked, [], "nothing was blocked by the pages' CSP");

    // 3. The SDK exchanges the code (PKCE verifier, resource) and the client connects.
    await first.finishAuth(callback.searchParams);
    assert.equal(provider.saved?.token_type?.toLowerCase(), "bearer");
    const client = new Client({ name: "terreno-oauth-e2e", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider }));
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    assert.ok(names.includes("todos_create") && names.includes("todos_list"), names.join());
    const created = (await client.callTool({
      name: "todos_create",
      arguments: { title: "signed in through the browser" },
    })) as { isError?: boolean; structuredContent?: Record<string, unknown> };
    assert.notEqual(created.isError, true, JSON.stringify(created));
    const listed = (await client.callTool({ name: "todos_list", arguments: {} })) as {
      structuredContent?: { data?: Array<{ title: string }> };
    };
    assert.deepEqual(
      listed.structuredContent?.data?.map((todo) => todo.title),
      ["signed in through the browser"],
    );
    await client.close();
  });
});
