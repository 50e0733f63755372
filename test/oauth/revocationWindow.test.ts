/**
 * The window behind the revocation race (#33.3), held open on purpose instead of hit by chance
 * (revocationRace.test.ts): the revocation stamps its mark with the time it sends the write, and
 * a refresh that runs while that write is still on its way reads no mark and sees its refresh
 * token not yet deleted, so it is granted an access token issued after the mark's time. Once the
 * revocation has answered, that token too must be refused.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Schema } from "mongoose";
import { useTestDatabase } from "../helpers/database.js";
import { User } from "../helpers/models.js";
import { connectByOAuth, mcpStatusWith, refreshOAuth } from "../helpers/oauthFlow.js";
import { type OAuthTestServer, PASSWORD, registerClient, startOAuthApp } from "./oauthApp.js";

useTestDatabase("oauth-revocation-window");

interface Gate {
  /** Settles once the mark's write is held. */
  reached: Promise<void>;
  release(): void;
}

/** `next()` holds the next revocation mark's write (an update setting `revokedAt`). */
function markWriteGates() {
  let waiting: { reached: () => void; released: Promise<void> } | undefined;
  User.db.plugin((schema: Schema) => {
    if (!schema.path("revokedAt")) return;
    schema.pre("updateOne", async function holdMark() {
      const update = this.getUpdate() as { $set?: { revokedAt?: unknown } } | null;
      if (!waiting || !update?.$set?.revokedAt) return;
      const { reached, released } = waiting;
      waiting = undefined;
      reached();
      await released;
    });
  });
  return {
    next(): Gate {
      let release: () => void = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const reached = new Promise<void>((resolve) => {
        waiting = { reached: resolve, released };
      });
      return { reached, release: () => release() };
    },
  };
}

describe("a refresh while the revocation's mark is being written", () => {
  let server: OAuthTestServer;
  // Before the app compiles its models, so the plugin reaches the marks' schema.
  const gates = markWriteGates();
  before(async () => {
    server = await startOAuthApp();
  });
  after(() => server.close());

  async function signUpAndConnect(email: string) {
    const signup = await fetch(`${server.url}/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: PASSWORD, name: "Window" }),
    });
    assert.equal(signup.status, 201);
    const session = ((await signup.json()) as { data: { token: string } }).data.token;
    const clientId = await registerClient(server.url);
    const connected = await connectByOAuth({ base: server.url, clientId, email });
    assert.ok(connected.refreshToken);
    return { session, clientId, connected: { ...connected, refreshToken: connected.refreshToken } };
  }

  /**
   * Runs `revoke` with its mark's write held, refreshes inside that window, then checks that no
   * token the app holds works once `revoke` answered `status`.
   */
  async function refreshInsideTheWindow(
    { clientId, connected }: Awaited<ReturnType<typeof signUpAndConnect>>,
    revoke: () => Promise<Response>,
    status: number,
  ) {
    const gate = gates.next();
    const revoking = revoke();
    await gate.reached;
    // Past the mark's timestamp, before the mark is stored: the refresh is still granted.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const refreshed = await refreshOAuth(server.url, clientId, connected.refreshToken);
    gate.release();
    assert.equal((await revoking).status, status);

    const issued = [connected.accessToken];
    if (refreshed.tokens) issued.push(refreshed.tokens.accessToken);
    for (const [index, token] of issued.entries()) {
      assert.equal(await mcpStatusWith(server.url, token), 401, `access token ${index + 1} works`);
    }
    if (refreshed.tokens?.refreshToken) {
      const next = await refreshOAuth(server.url, clientId, refreshed.tokens.refreshToken);
      assert.notEqual(next.status, 200, "the successor refresh token still mints");
    }
    // The refresh inside the window is the case under test: it must have been granted.
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
  }

  test("revoking the app: the access token granted inside the window is refused", async () => {
    const user = await signUpAndConnect("revocation-window@example.com");
    await refreshInsideTheWindow(
      user,
      () =>
        fetch(`${server.url}/auth/connections/${user.clientId}`, {
          method: "DELETE",
          headers: { authorization: `Bearer ${user.session}` },
        }),
      204,
    );
  });

  test("a password change: the access token granted inside the window is refused", async () => {
    const user = await signUpAndConnect("password-window@example.com");
    await refreshInsideTheWindow(
      user,
      () =>
        fetch(`${server.url}/auth/password`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${user.session}`,
            "content-type": "application/json",
          },
          body: JSON.stringify({ currentPassword: PASSWORD, newPassword: `${PASSWORD} changed` }),
        }),
      200,
    );
  });
});
