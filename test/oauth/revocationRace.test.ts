/**
 * Issue #33.3: revoking a connected app wins over a refresh in flight. An app refreshes back to
 * back while its user calls `DELETE /auth/connections/:clientId`; whatever the interleaving,
 * no access token the app got is accepted on /mcp afterwards, and no refresh token it holds
 * mints another. The same for a password change (#33.7), which ends every client's grant. Run
 * many times, since the window is a few milliseconds wide.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { useTestDatabase } from "../helpers/database.js";
import { connectByOAuth, mcpStatusWith, refreshOAuth } from "../helpers/oauthFlow.js";
import { Cookies } from "./httpFlow.js";
import { PASSWORD, registerClient, useOAuthApp } from "./oauthApp.js";

useTestDatabase("oauth-revocation-race");

const EMAIL = "revocation-race@example.com";
const ROUNDS = 20;
/**
 * Waits into the next second: the library stores a refresh token's creation in whole seconds,
 * and one created in the same second as a revocation counts as revoked, so a round that
 * reconnected at once would see its first refresh refused and race nothing.
 */
const nextSecond = () => sleep(1005 - (Date.now() % 1000));
/** Refreshes granted after the revocation answered: more than one in flight means it lost. */
const MAX_AFTER_REVOKE = 3;

/**
 * The app refreshing back to back from its first tokens: `issued` gathers every access token
 * it got, `current` is its latest refresh token. `done` is false once the server refuses a
 * refresh, true when MAX_AFTER_REVOKE more were granted after `answered()` (it lost).
 */
function refreshChain(
  base: string,
  clientId: string,
  first: { accessToken: string; refreshToken: string },
  answered: () => boolean,
) {
  const chain = { issued: [first.accessToken], current: first.refreshToken };
  const done = (async () => {
    let after = 0;
    while (after < MAX_AFTER_REVOKE) {
      const refreshed = await refreshOAuth(base, clientId, chain.current);
      if (!refreshed.tokens?.refreshToken) return false;
      chain.issued.push(refreshed.tokens.accessToken);
      chain.current = refreshed.tokens.refreshToken;
      if (answered()) after++;
    }
    return true;
  })();
  return { chain, done };
}

/** Every access token the app got is refused on /mcp. */
async function assertAllRefused(base: string, round: number, issued: string[]): Promise<void> {
  for (const [index, token] of issued.entries()) {
    assert.equal(
      await mcpStatusWith(base, token),
      401,
      `round ${round}: access token ${index + 1} of ${issued.length} still works`,
    );
  }
}

describe("revoking a connected app while it refreshes", () => {
  const server = useOAuthApp();

  test(`no token of the revoked app works afterwards (${ROUNDS} races)`, async () => {
    const signup = await fetch(`${server.url}/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: EMAIL, password: PASSWORD, name: "Racer" }),
    });
    assert.equal(signup.status, 201);
    const session = ((await signup.json()) as { data: { token: string } }).data.token;
    const clientId = await registerClient(server.url);
    const browser = new Cookies();

    let raced = 0;
    for (let round = 0; round < ROUNDS; round++) {
      await nextSecond();
      const connected = await connectByOAuth({
        base: server.url,
        clientId,
        email: EMAIL,
        cookies: browser,
      });
      assert.ok(connected.refreshToken, "offline_access gives a refresh token");
      // The app refreshes back to back until the server refuses it.
      let revokedAnswered = false;
      const { chain, done: refresher } = refreshChain(
        server.url,
        clientId,
        { accessToken: connected.accessToken, refreshToken: connected.refreshToken },
        () => revokedAnswered,
      );
      // The person revokes it a little later each round, to land in different windows: during
      // the first refresh, or further down the chain.
      await sleep((round % 5) * 8);
      const revoked = await fetch(`${server.url}/auth/connections/${clientId}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${session}` },
      });
      revokedAnswered = true;
      assert.equal(revoked.status, 204, `round ${round}: ${await revoked.text()}`);
      assert.equal(await refresher, false, `round ${round}: the refreshes never stopped`);
      await assertAllRefused(server.url, round, chain.issued);
      const last = await refreshOAuth(server.url, clientId, chain.current);
      assert.notEqual(last.status, 200, `round ${round}: the last refresh token still works`);
      if (chain.issued.length > 1) raced++;
    }
    // Some rounds were revoked further down a refresh chain, not only during its first refresh.
    assert.ok(raced > 0, "no round refreshed before the revocation");
  });

  test("a password change racing a refresh leaves no working token either (10 races)", async () => {
    const email = "password-race@example.com";
    const signup = await fetch(`${server.url}/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: PASSWORD, name: "Racer" }),
    });
    assert.equal(signup.status, 201);
    let session = ((await signup.json()) as { data: { token: string } }).data.token;
    const clientId = await registerClient(server.url);
    let password = PASSWORD;

    let raced = 0;
    for (let round = 0; round < 10; round++) {
      await nextSecond();
      const connected = await connectByOAuth({ base: server.url, clientId, email, password });
      assert.ok(connected.refreshToken);
      let changedAnswered = false;
      const { chain, done: refresher } = refreshChain(
        server.url,
        clientId,
        { accessToken: connected.accessToken, refreshToken: connected.refreshToken },
        () => changedAnswered,
      );
      await sleep((round % 5) * 8);
      const newPassword = `${PASSWORD} round ${round}`;
      const changed = await fetch(`${server.url}/auth/password`, {
        method: "POST",
        headers: { authorization: `Bearer ${session}`, "content-type": "application/json" },
        body: JSON.stringify({ currentPassword: password, newPassword }),
      });
      changedAnswered = true;
      assert.equal(changed.status, 200, `round ${round}: ${await changed.clone().text()}`);
      const body = (await changed.json()) as { data?: { token?: string } };
      password = newPassword;
      // The change ends the old session too: sign in again for the next round.
      session = body.data?.token ?? (await signIn(email, password));
      assert.equal(await refresher, false, `round ${round}: the refreshes never stopped`);
      await assertAllRefused(server.url, round, chain.issued);
      if (chain.issued.length > 1) raced++;
    }
    assert.ok(raced > 0, "no round refreshed before the password change");
  });

  async function signIn(email: string, password: string): Promise<string> {
    const response = await fetch(`${server.url}/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password }),
    });
    assert.equal(response.status, 200);
    return ((await response.json()) as { data: { token: string } }).data.token;
  }
});
