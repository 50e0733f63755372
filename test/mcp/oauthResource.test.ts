/**
 * The MCP endpoint as an OAuth protected resource (RFC 9728, MCP authorization): the Protected
 * Resource Metadata at both well-known URL forms, derived or configured, read by the MCP SDK's
 * own discovery; and the `WWW-Authenticate` challenge on every 401 from /mcp.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { discoverOAuthProtectedResourceMetadata } from "@modelcontextprotocol/sdk/client/auth.js";
import type { Express } from "express";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import {
  bearerChallenge,
  protectedResourceMetadata,
  resourceMetadataUrl,
} from "../../src/mcp/resourceMetadata.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { signedUp } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { useListening } from "../helpers/mcpClients.js";
import { Todo, User } from "../helpers/models.js";
import { buildRestApp, JWT_SECRET, todoOptions } from "../helpers/restApp.js";

useTestDatabase("mcp_oauth_resource");

const ACCEPT = "application/json, text/event-stream";
const WELL_KNOWN = "/.well-known/oauth-protected-resource";

function listTools(app: Express, token?: string) {
  const req = request(app)
    .post("/mcp")
    .set("Accept", ACCEPT)
    .set("Content-Type", "application/json");
  if (token) req.set("Authorization", `Bearer ${token}`);
  return req.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
}

/** `Bearer a="1", b="2"` → `{a: "1", b: "2"}`. */
function challengeParams(header: string): Record<string, string> {
  assert.match(header, /^Bearer /);
  const params: Record<string, string> = {};
  for (const [, key, value] of header.slice(7).matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
    params[key] = value.replace(/\\(.)/g, "$1");
  }
  return params;
}

describe("MCP endpoint as an OAuth protected resource", () => {
  const app = buildRestApp();
  const server = useListening(app);
  const [alice] = signedUp(app, "alice");

  test("metadata at the path form and the root form, resource derived from the request", async () => {
    for (const path of [`${WELL_KNOWN}/mcp`, WELL_KNOWN]) {
      const res = await fetch(new URL(path, server.url));
      assert.equal(res.status, 200, path);
      assert.match(String(res.headers.get("content-type")), /application\/json/);
      assert.equal(res.headers.get("access-control-allow-origin"), "*");
      assert.deepEqual(await res.json(), {
        resource: `${server.url}/mcp`,
        scopes_supported: ["mcp:read", "mcp:write"],
        bearer_methods_supported: ["header"],
      });
    }
    // Browser clients preflight it.
    const preflight = await fetch(new URL(`${WELL_KNOWN}/mcp`, server.url), {
      method: "OPTIONS",
      headers: { Origin: "http://localhost:6274", "Access-Control-Request-Method": "GET" },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "*");
  });

  test("the MCP SDK's discovery reads it", async () => {
    const metadata = await discoverOAuthProtectedResourceMetadata(`${server.url}/mcp`);
    assert.equal(metadata.resource, `${server.url}/mcp`);
    assert.deepEqual(metadata.scopes_supported, ["mcp:read", "mcp:write"]);
  });

  test("401 without credentials: a challenge naming the metadata URL and the scopes, no error", async () => {
    const res = await fetch(new URL("/mcp", server.url), {
      method: "POST",
      headers: { Accept: ACCEPT, "Content-Type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    assert.equal(res.status, 401);
    const header = String(res.headers.get("www-authenticate"));
    assert.deepEqual(challengeParams(header), {
      resource_metadata: `${server.url}${WELL_KNOWN}/mcp`,
      scope: "mcp:read mcp:write",
    });
    const body = (await res.json()) as {
      jsonrpc: string;
      error: { data: { error: { code: string } } };
    };
    assert.equal(body.jsonrpc, "2.0");
    assert.equal(body.error.data.error.code, "unauthenticated");
    // The URL in the challenge serves the metadata.
    const metadata = await fetch(challengeParams(header).resource_metadata);
    assert.equal(((await metadata.json()) as { resource: string }).resource, `${server.url}/mcp`);
  });

  test("401 for a refused token: error=invalid_token with a description, and the metadata URL", async () => {
    for (const token of ["not-a-token", `${alice.token}x`, `tmcp_${"A".repeat(43)}`]) {
      const res = await listTools(app, token);
      assert.equal(res.status, 401, token);
      const params = challengeParams(String(res.headers["www-authenticate"]));
      assert.equal(params.error, "invalid_token", token);
      assert.ok(params.error_description, token);
      assert.match(
        params.resource_metadata,
        /^http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp$/,
      );
      assert.equal(params.scope, "mcp:read mcp:write");
    }
    // A malformed Authorization header is a refused credential too.
    const basic = await request(app)
      .post("/mcp")
      .set("Accept", ACCEPT)
      .set("Authorization", "Basic abc")
      .send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    assert.equal(basic.status, 401);
    assert.equal(challengeParams(String(basic.headers["www-authenticate"])).error, "invalid_token");
    // Authenticated requests carry no challenge.
    const ok = await listTools(app, alice.token);
    assert.equal(ok.status, 200);
    assert.equal(ok.headers["www-authenticate"], undefined);
  });

  test("configured resource URL and authorization servers", async () => {
    const configured = new TerrenoApp({
      userModel: User,
      auth: { jwt: { secret: JWT_SECRET } },
      mcp: {
        resourceUrl: "https://api.example.com/v1/mcp",
        oauth: {
          authorizationServers: ["https://auth.example.com/"],
          resourceName: "Example todos",
        },
      },
    })
      .register(modelRouter(Todo, todoOptions()))
      .build();
    const expected = {
      resource: "https://api.example.com/v1/mcp",
      authorization_servers: ["https://auth.example.com/"],
      scopes_supported: ["mcp:read", "mcp:write"],
      bearer_methods_supported: ["header"],
      resource_name: "Example todos",
    };
    // The mount path's form, the configured URL's own path form (behind a proxy), and the root.
    for (const path of [`${WELL_KNOWN}/mcp`, `${WELL_KNOWN}/v1/mcp`, WELL_KNOWN]) {
      const res = await request(configured).get(path).set("Host", "evil.example");
      assert.equal(res.status, 200, path);
      assert.deepEqual(res.body, expected, path);
    }
    const denied = await listTools(configured);
    assert.equal(denied.status, 401);
    assert.equal(
      challengeParams(String(denied.headers["www-authenticate"])).resource_metadata,
      `https://api.example.com${WELL_KNOWN}/v1/mcp`,
    );
  });

  test("a bad resource URL fails at build; with trust proxy off, forwarded headers are ignored", async () => {
    for (const resourceUrl of ["/mcp", "ftp://x/mcp", "https://x/mcp#f", "https://x/mcp?a=1"]) {
      assert.throws(
        () =>
          new TerrenoApp({
            userModel: User,
            auth: { jwt: { secret: JWT_SECRET } },
            mcp: { resourceUrl },
          })
            .register(modelRouter(Todo, todoOptions()))
            .build(),
        /resourceUrl/,
        resourceUrl,
      );
    }
    const res = await request(app)
      .get(`${WELL_KNOWN}/mcp`)
      .set("Host", "127.0.0.1:4000")
      .set("X-Forwarded-Proto", "https")
      .set("X-Forwarded-Host", "evil.example");
    assert.equal(res.body.resource, "http://127.0.0.1:4000/mcp");
  });

  test("helpers: metadata URL per RFC 9728 §3.1, challenge quoting", () => {
    assert.equal(
      resourceMetadataUrl("https://api.example.com/mcp"),
      "https://api.example.com/.well-known/oauth-protected-resource/mcp",
    );
    assert.equal(
      resourceMetadataUrl("https://api.example.com/"),
      "https://api.example.com/.well-known/oauth-protected-resource",
    );
    assert.deepEqual(protectedResourceMetadata("https://a/mcp").authorization_servers, undefined);
    const header = bearerChallenge({
      resourceMetadata: "https://a/.well-known/oauth-protected-resource/mcp",
      error: "invalid_token",
      description: 'bad "token"\r\nX-Injected: 1',
    });
    assert.ok(!/[\r\n]/.test(header));
    assert.equal(challengeParams(header).error_description, "bad 'token'''X-Injected: 1");
  });
});
