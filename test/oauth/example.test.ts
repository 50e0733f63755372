/**
 * The example wires the authorization server when it knows its URL (`npm run example` passes
 * it): the metadata MCP clients discover is served and /mcp's resource metadata names the
 * issuer. Without the URL (tests on a random port) it runs with tokens only.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import request from "supertest";
import { createExampleApp } from "../../example-backend/app.js";
import { publicUrlFrom } from "../../example-backend/oauth.js";
import { useTestDatabase } from "../helpers/database.js";
import { JWT_SECRET } from "../helpers/restApp.js";

useTestDatabase("oauth_example");

describe("the example's OAuth sign-in", () => {
  test("with publicUrl: RFC 8414 metadata, and /mcp names the issuer", async () => {
    const publicUrl = "http://127.0.0.1:4000";
    const app = createExampleApp({ jwtSecret: JWT_SECRET, env: {}, publicUrl }).build();
    const metadata = await request(app).get("/.well-known/oauth-authorization-server");
    assert.equal(metadata.status, 200);
    assert.equal(metadata.body.issuer, publicUrl);
    const resource = await request(app).get("/.well-known/oauth-protected-resource/mcp");
    assert.deepEqual(resource.body.authorization_servers, [publicUrl]);
    assert.equal(resource.body.resource, `${publicUrl}/mcp`);
    const login = await request(app).get("/oauth/login");
    assert.equal(login.status, 200);
    assert.match(login.text, /Sign in to terreno-example/);
  });

  test("without it: no authorization server", async () => {
    const app = createExampleApp({ jwtSecret: JWT_SECRET, env: {} }).build();
    assert.equal((await request(app).get("/.well-known/oauth-authorization-server")).status, 404);
    const resource = await request(app).get("/.well-known/oauth-protected-resource/mcp");
    assert.equal(resource.body.authorization_servers, undefined);
  });

  test("publicUrl: PUBLIC_URL wins, else the listening host and port", () => {
    assert.equal(
      publicUrlFrom("https://mcp.example.com/", "0.0.0.0", 4000),
      "https://mcp.example.com",
    );
    assert.equal(publicUrlFrom(undefined, "0.0.0.0", 4000), "http://127.0.0.1:4000");
    assert.equal(publicUrlFrom(undefined, "::1", 4001), "http://[::1]:4001");
  });
});
