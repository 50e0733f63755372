/**
 * Issue #33.16 and #33.15, over HTTP: dynamic registration grants the scopes a client asked for
 * (it added `openid` to every client), and a client registered for the `refresh_token` grant
 * gets a refresh token without asking for `offline_access`, as `@ai-sdk/mcp` 2 asks.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import request from "supertest";
import { useTestDatabase } from "../helpers/database.js";
import { authorizeUrl, connectByOAuth, refreshOAuth } from "../helpers/oauthFlow.js";
import { CALLBACK, pkce, useOAuthApp } from "./oauthApp.js";

useTestDatabase("oauth_registration_scopes");

const EMAIL = "registration-scopes@example.com";

describe("registration scopes and refresh tokens", () => {
  const server = useOAuthApp({}, EMAIL);

  const register = async (fields: Record<string, unknown>) => {
    const response = await request(server.app)
      .post("/oauth/oauth2/register")
      .send({
        client_name: "Scoped client",
        redirect_uris: [CALLBACK],
        token_endpoint_auth_method: "none",
        ...fields,
      });
    assert.equal(response.status, 201, response.text);
    return response.body as { client_id: string; scope: string };
  };

  test("a client gets the scopes it asked for, not openid", async () => {
    const registered = await register({ scope: "mcp:read mcp:write" });
    assert.deepEqual(registered.scope.split(" ").sort(), ["mcp:read", "mcp:write"]);
    // What it holds is what the server checks: openid was never granted.
    const target = new URL(
      authorizeUrl({
        base: server.url,
        clientId: registered.client_id,
        codeChallenge: pkce().challenge,
        scope: "openid mcp:read",
      }),
    );
    const asked = await request(server.app)
      .get(target.pathname + target.search)
      .redirects(0);
    assert.match(asked.headers.location ?? "", /error=invalid_scope/, asked.text);
  });

  test("registered for the refresh_token grant: offline_access, and a refresh token without asking", async () => {
    const registered = await register({
      scope: "mcp:read mcp:write",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    });
    assert.deepEqual(registered.scope.split(" ").sort(), [
      "mcp:read",
      "mcp:write",
      "offline_access",
    ]);
    const tokens = await connectByOAuth({
      base: server.url,
      clientId: registered.client_id,
      email: EMAIL,
      scope: "mcp:read mcp:write",
    });
    assert.ok(tokens.refreshToken, `no refresh token: ${JSON.stringify(tokens.body)}`);
    const refreshed = await refreshOAuth(server.url, registered.client_id, tokens.refreshToken);
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
  });

  test("registered for authorization_code alone: no refresh token unless it asks", async () => {
    const registered = await register({ scope: "mcp:read" });
    const tokens = await connectByOAuth({
      base: server.url,
      clientId: registered.client_id,
      email: EMAIL,
      scope: "mcp:read",
    });
    assert.equal(tokens.refreshToken, undefined);
  });

  test("a client registered in advance, as the guide shows, signs in with its client id", async () => {
    // docs/oauth-and-tokens.md: for Claude Code's --client-id when the server cannot fetch its
    // metadata document. The same request as the guide's curl.
    const response = await fetch(`${server.url}/oauth/oauth2/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "Claude Code (registered in advance)",
        redirect_uris: [CALLBACK],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
        scope: "mcp:read mcp:write",
      }),
    });
    assert.equal(response.status, 201);
    const created = (await response.json()) as Record<string, unknown>;
    assert.equal(created.client_secret, undefined, "a public client has no secret");
    const tokens = await connectByOAuth({
      base: server.url,
      clientId: created.client_id as string,
      email: EMAIL,
      scope: "mcp:read mcp:write",
    });
    assert.ok(tokens.refreshToken);
  });
});
