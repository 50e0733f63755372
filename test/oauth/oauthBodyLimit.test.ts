/**
 * The OAuth library's routes read the request stream themselves, so the app's JSON limit never
 * applied to them (issue 33.5): dynamic registration stored a 5 MB client_name and a 20 MB body
 * was a 500. Every route the library reads raw now has a body limit answered with 413 and a
 * JSON error, and registration caps each client metadata field, with a 400 naming the field.
 * Nothing is stored for any of them, and no 500 reaches the log.
 */
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { after, before, describe, test } from "node:test";
import { useTestDatabase } from "../helpers/database.js";
import { CALLBACK, type OAuthTestServer, startOAuthApp } from "./oauthApp.js";

useTestDatabase("oauth_body_limit");

const registration = (extra: Record<string, unknown> = {}) => ({
  client_name: "Body limit client",
  redirect_uris: [CALLBACK],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "none",
  ...extra,
});

describe("body limits on the OAuth library's routes", () => {
  let server: OAuthTestServer;
  let errors: unknown[];
  const originalError = console.error;

  before(async () => {
    server = await startOAuthApp();
    // The app's and Better Auth's default loggers both report server faults on console.error.
    errors = [];
    console.error = (...args: unknown[]) => {
      errors.push(args);
      originalError(...args);
    };
  });
  after(async () => {
    console.error = originalError;
    await server?.close();
  });

  const clientsNamed = async (name: string) => {
    const { adapter } = await server.plugin.auth().$context;
    const all = await adapter.findMany<{ name?: string }>({ model: "oauthClient" });
    return all.filter((client) => client.name?.startsWith(name)).length;
  };

  const register = async (body: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${server.url}/oauth/oauth2/register`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
    });
    const text = await response.text();
    return { status: response.status, type: response.headers.get("content-type"), text };
  };

  test("a 20 MB registration is 413 with a JSON error, not a 500, and stores nothing", async () => {
    const name = "Twenty MB";
    const { status, type, text } = await register(
      JSON.stringify(registration({ client_name: `${name} ${"x".repeat(20 * 1024 * 1024)}` })),
    );
    assert.equal(status, 413, text.slice(0, 200));
    assert.match(type ?? "", /application\/json/);
    const body = JSON.parse(text) as Record<string, unknown>;
    assert.equal(body.error, "invalid_request");
    assert.match(String(body.error_description), /larger than/);
    assert.equal(await clientsNamed(name), 0);
  });

  test("a 5 MB client_name is refused and not stored", async () => {
    const name = "Five MB";
    const { status } = await register(
      JSON.stringify(registration({ client_name: `${name} ${"x".repeat(5 * 1024 * 1024)}` })),
    );
    assert.equal(status, 413);
    assert.equal(await clientsNamed(name), 0);
  });

  test("a body streamed without Content-Length is cut off at the limit too", async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(`${server.url}/oauth/oauth2/register`);
      const req = httpRequest(url, {
        method: "POST",
        headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
      });
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.write('{"client_name":"');
      const chunk = "y".repeat(64 * 1024);
      let sent = 0;
      const more = () => {
        while (sent < 2 * 1024 * 1024) {
          sent += chunk.length;
          if (!req.write(chunk)) {
            req.once("drain", more);
            return;
          }
        }
        req.end('"}');
      };
      more();
    });
    assert.equal(status, 413);
  });

  test("the token and revocation endpoints have the limit as well", async () => {
    for (const path of ["/oauth/oauth2/token", "/oauth/oauth2/revoke"]) {
      const response = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "x".repeat(1024 * 1024) }).toString(),
      });
      assert.equal(response.status, 413, path);
      assert.equal(((await response.json()) as { error: string }).error, "invalid_request");
    }
  });

  const fieldCases: Array<{ field: string; extra: Record<string, unknown> }> = [
    { field: "client_name", extra: { client_name: `Long name ${"n".repeat(300)}` } },
    { field: "client_uri", extra: { client_uri: `https://client.example/${"u".repeat(3000)}` } },
    { field: "logo_uri", extra: { logo_uri: `https://client.example/${"l".repeat(3000)}` } },
    {
      field: "redirect_uris",
      extra: { redirect_uris: [`http://127.0.0.1:9/${"r".repeat(3000)}`] },
    },
    {
      field: "redirect_uris",
      extra: { redirect_uris: Array.from({ length: 50 }, (_, i) => `http://127.0.0.1:9/cb${i}`) },
    },
    { field: "contacts", extra: { contacts: Array(50).fill("a@example.com") } },
    { field: "scope", extra: { scope: "mcp:read ".repeat(200) } },
    { field: "software_id", extra: { software_id: "s".repeat(500) } },
  ];
  for (const { field, extra } of fieldCases) {
    test(`registration caps ${field}: 400 naming the field, nothing stored`, async () => {
      const name = `Field ${field} ${Object.keys(extra).length}`;
      const body = registration({ client_name: name, ...extra });
      const { status, text } = await register(JSON.stringify(body));
      assert.equal(status, 400, text);
      const answer = JSON.parse(text) as Record<string, unknown>;
      assert.equal(answer.error, "invalid_client_metadata");
      assert.match(String(answer.error_description), new RegExp(`^${field}\\b`));
      assert.equal(await clientsNamed(String(body.client_name).slice(0, 20)), 0);
    });
  }

  test("a registration within the limits still succeeds", async () => {
    const { status, text } = await register(JSON.stringify(registration()));
    assert.equal(status, 201, text);
    assert.ok((JSON.parse(text) as { client_id?: string }).client_id);
  });

  test("no 500 was logged", () => {
    assert.deepEqual(errors, []);
  });
});
