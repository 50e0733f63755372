/**
 * Issue #24.3: the example page's account menu lists the apps connected through OAuth and the
 * personal access tokens, and its Revoke buttons end them: a real OAuth client (registered and
 * authorized over HTTP) and a PAT are revoked from the page, then refused by the server.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { browserSkipReason } from "../helpers/browser.js";
import { useTestDatabase } from "../helpers/database.js";
import { useExamplePage } from "../helpers/examplePage.js";
import { connectByOAuth, refreshOAuth } from "../helpers/oauthFlow.js";
import { registerClient } from "../oauth/oauthApp.js";

useTestDatabase("example_account_browser");

const EMAIL = "account-menu@example.com";

describe("the example page's account menu", { skip: browserSkipReason() }, () => {
  const ex = useExamplePage({ oauth: true });

  test("revokes a connected app and a personal access token", async () => {
    await ex.signUp(EMAIL);
    const pat = await ex.call("POST", "/auth/tokens", { name: "laptop-cli", scope: "read" });
    assert.equal(pat.status, 201, JSON.stringify(pat.body));
    const patToken = (pat.body as { data: { token: string } }).data.token;

    // An MCP client connects through the OAuth sign-in, as the same person.
    const client = await registerClient(ex.url);
    const tokens = await connectByOAuth({ base: ex.url, clientId: client, email: EMAIL });

    const page = ex.page;
    await page.getByRole("button", { name: EMAIL }).click();
    const apps = page.getByRole("list", { name: "Connected apps" });
    await apps.getByText("HTTP test client").waitFor();
    assert.match(String(await apps.textContent()), /unverified/);
    assert.match(String(await apps.textContent()), /127\.0\.0\.1:9/);
    const pats = page.getByRole("list", { name: "Personal access tokens" });
    await pats.getByText("laptop-cli").waitFor();

    await page.getByRole("button", { name: "Revoke HTTP test client" }).click();
    await apps.getByText("HTTP test client").waitFor({ state: "detached" });
    assert.ok(tokens.refreshToken, "no refresh token");
    const refreshed = await refreshOAuth(ex.url, client, tokens.refreshToken);
    assert.notEqual(refreshed.status, 200, "the OAuth refresh token still works");
    assert.deepEqual(await ex.api("/auth/connections"), []);

    await page.getByRole("button", { name: "Revoke laptop-cli" }).click();
    await pats.getByText("laptop-cli").waitFor({ state: "detached" });
    const me = await fetch(`${ex.url}/auth/me`, {
      headers: { Authorization: `Bearer ${patToken}` },
    });
    assert.equal(me.status, 401, "the personal access token still works");
    assert.deepEqual(ex.problems, []);
  });
});
