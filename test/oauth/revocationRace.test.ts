/**
 * Issue #33.3: revoking a connected app wins over a refresh in flight. An app refreshes back to
 * back while its user calls `DELETE /auth/connections/:clientId`; whatever the interleaving,
 * no access token the app got is accepted on /mcp afterwards, and no refresh token it holds
 * mints another. Run many times, since the window is a few milliseconds wide.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { useTestDatabase } from "../helpers/database.js";
import { connectByOAuth, mcpStatusWith, refreshOAuth } from "../helpers/oauthFlow.js";
import { Cookies } from "./httpFlow.js";
import { type OAuthTestServer, PASSWORD, registerClient, startOAuthApp } from "./oauthApp.js";

useTestDatabase("oauth-revocation-race");

const EMAIL = "revocation-race@example.com";
const ROUNDS = 20;
/** Refreshes granted after the revocation answered: more than one in flight means it lost. */
const MAX_AFTER_REVOKE = 3;

describe("revoking a connected app while it refreshes", () => {
  let server: OAuthTestServer;
  before(async () => {
    server = await startOAuthApp();
  });
  after(() => server.close());

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

    for (let round = 0; round < ROUNDS; round++) {
      const connected = await connectByOAuth({
        base: server.url,
        clientId,
        email: EMAIL,
        cookies: browser,
      });
      assert.ok(connected.refreshToken, "offline_access gives a refresh token");
      const issued = [connected.accessToken];
      let current = connected.refreshToken;

      // The app refreshes back to back until the server refuses it.
      let revokedAnswered = false;
      let afterRevoke = 0;
      const refresher = (async () => {
        while (afterRevoke < MAX_AFTER_REVOKE) {
          const refreshed = await refreshOAuth(server.url, clientId, current);
          if (!refreshed.tokens?.refreshToken) return false;
          issued.push(refreshed.tokens.accessToken);
          current = refreshed.tokens.refreshToken;
          if (revokedAnswered) afterRevoke++;
        }
        return true;
      })();
      // The person revokes it a little later each round, to land in different windows.
      await sleep(round % 5);
      const revoked = await fetch(`${server.url}/auth/connections/${clientId}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${session}` },
      });
      revokedAnswered = true;
      assert.equal(revoked.status, 204, `round ${round}: ${await revoked.text()}`);
      assert.equal(await refresher, false, `round ${round}: the refreshes never stopped`);

      for (const [index, token] of issued.entries()) {
        assert.equal(
          await mcpStatusWith(server.url, token),
          401,
          `round ${round}: access token ${index + 1} of ${issued.length} still works`,
        );
      }
      const last = await refreshOAuth(server.url, clientId, current);
      assert.notEqual(last.status, 200, `round ${round}: the last refresh token still works`);
    }
  });
});
