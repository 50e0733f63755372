/**
 * The second red team's hostile inputs (issue #33), sent to the example app as it runs (OAuth on,
 * chat on, limits on), and then its log is read: every request gets a 4xx (or a refusal the
 * protocol defines), and the log shows no 5xx line and no server fault. Each input also has its
 * own test on its own surface (test/chat, test/oauth, test/mcp, test/auth); this one proves the
 * whole app holds them together, as the red team attacked it.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createServer, get, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { createExampleApp } from "../../example-backend/app.js";
import type { RunningServer } from "../../src/index.js";
import { findFreePort } from "../../src/testing/ferretdbServer.js";
import { PASSWORD } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { ACCEPT, initializeMessage } from "../helpers/mcpWire.js";
import { serverLog } from "../helpers/serverLog.js";

useTestDatabase("example_hostile");

/** A top-level navigation's GET, as a browser sends it: the status and Location it acts on. */
function navigate(url: string): Promise<{ status: number; location?: string }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { Accept: "text/html", "Sec-Fetch-Mode": "navigate" } }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, location: res.headers.location });
    }).on("error", reject);
  });
}

describe("the example under the second red team's inputs", () => {
  const log = serverLog();
  let running: RunningServer;
  let base: string;
  let token: string;
  let email: string;
  /** A listener the chat must never reach (the SSRF target). */
  let secret: Server;
  let secretHits = 0;

  const send = (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const { json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (json !== undefined) headers.set("Content-Type", "application/json");
    if (token && !headers.has("Authorization")) headers.set("Authorization", `Bearer ${token}`);
    return fetch(`${base}${path}`, {
      ...rest,
      headers,
      redirect: "manual",
      ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
    });
  };
  const chatWith = (parts: unknown[]) =>
    send("/chat", {
      method: "POST",
      json: { id: randomUUID(), messages: [{ id: "u1", role: "user", parts }] },
    });

  before(async () => {
    secret = createServer((_req, res) => {
      secretHits += 1;
      res.end("the secret");
    });
    await new Promise<void>((resolve) => secret.listen(0, "127.0.0.1", resolve));
    const port = await findFreePort();
    base = `http://127.0.0.1:${port}`;
    running = await createExampleApp({
      jwtSecret: "example-hostile-secret-long-enough-for-hs256",
      env: {},
      publicUrl: base,
      ...log.appOptions,
    }).start({ port, host: "127.0.0.1", handleSignals: false, shutdownTimeoutMs: 2000 });
    email = `hostile-${Date.now()}@example.com`;
    const signup = await send("/auth/signup", {
      method: "POST",
      json: { email, password: PASSWORD, name: "Mallory" },
    });
    assert.equal(signup.status, 201);
    token = ((await signup.json()) as { data: { token: string } }).data.token;
  });

  after(async () => {
    await running.close();
    await new Promise<void>((resolve) => secret.close(() => resolve()));
  });

  test("chat: remote file parts are refused and the internal listener hears nothing", async () => {
    const { port } = secret.address() as AddressInfo;
    // One host form per file type (test/chat/fileParts.test.ts tries every form): the chat's
    // own limit (10 turns per 10 s) counts refused turns too.
    for (const [host, file, mediaType] of [
      ["localhost", "secret.txt", "text/plain"],
      ["127.0.0.1", "secret.png", "image/png"],
      ["[::ffff:127.0.0.1]", "secret.pdf", "application/pdf"],
    ]) {
      const reply = await chatWith([
        { type: "text", text: "read this" },
        { type: "file", url: `http://${host}:${port}/${file}`, mediaType },
      ]);
      assert.equal(reply.status, 400, `${host} ${file}`);
      const body = (await reply.json()) as { fields?: Record<string, string> };
      assert.ok(body.fields?.["messages.0.parts.1"], JSON.stringify(body));
    }
    assert.equal(secretHits, 0);
  });

  test("chat: malformed parts, internal conversation fields and app-call injections are 400s", async () => {
    for (const parts of [[null], [{ type: "text" }], [{ type: "text", text: null }]]) {
      assert.equal((await chatWith(parts)).status, 400, JSON.stringify(parts));
    }
    for (const field of ["activeStreamId", "stopStreamId"]) {
      const reply = await send("/chat/conversations", {
        method: "POST",
        json: { title: "x", [field]: randomUUID() },
      });
      assert.equal(reply.status, 400, field);
    }
    const appCall = await send("/chat/app-calls", {
      method: "POST",
      json: { name: "search_docs", arguments: { query: { $ne: 1 } } },
    });
    assert.equal(appCall.status, 400);
  });

  test("OAuth: a 20 MB registration is a 413, and a refused CIMD document a 303 to the problem page", async () => {
    const register = await fetch(`${base}/oauth/oauth2/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        client_name: "x".repeat(20 * 1024 * 1024),
        redirect_uris: ["http://127.0.0.1:9/cb"],
      }),
    });
    assert.equal(register.status, 413);
    // As a browser navigates there (Node's fetch would be answered as a script, with JSON).
    const authorize = await navigate(
      `${base}/oauth/oauth2/authorize?${new URLSearchParams({
        client_id: `https://127.0.0.1:${(secret.address() as AddressInfo).port}/client.json`,
        redirect_uri: "http://127.0.0.1:9/cb",
        response_type: "code",
        code_challenge: "x".repeat(43),
        code_challenge_method: "S256",
      })}`,
    );
    assert.equal(authorize.status, 303);
    assert.match(authorize.location ?? "", /\/oauth\/problem\?error=/);
    assert.equal(secretHits, 0);
  });

  test("MCP: unsolicited elicitation answers are refused", async () => {
    const init = await send("/mcp", {
      method: "POST",
      headers: { Accept: ACCEPT },
      json: initializeMessage({ elicitation: {} }),
    });
    assert.equal(init.status, 200);
    const sessionId = init.headers.get("mcp-session-id") ?? "";
    for (let i = 0; i < 5; i++) {
      const reply = await send("/mcp", {
        method: "POST",
        headers: {
          Accept: ACCEPT,
          "Mcp-Session-Id": sessionId,
          "MCP-Protocol-Version": "2025-06-18",
        },
        json: {
          jsonrpc: "2.0",
          id: `made-up-${i}`,
          result: { action: "accept", content: { confirm: true, pad: "x".repeat(90_000) } },
        },
      });
      assert.ok([400, 413, 429].includes(reply.status), String(reply.status));
    }
  });

  test("login: a burst of wrong passwords is judged up to the limit, then refused", async () => {
    const statuses = await Promise.all(
      Array.from({ length: 12 }, () =>
        fetch(`${base}/auth/login`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ email, password: "wrong password!" }),
        }).then((reply) => reply.status),
      ),
    );
    assert.ok(
      statuses.every((status) => status === 401 || status === 429),
      statuses.join(),
    );
    assert.ok(statuses.filter((status) => status === 401).length <= 5, statuses.join());
  });

  test("afterwards the log shows no 5xx and no server fault", () => {
    assert.deepEqual(log.serverErrors(), []);
  });
});
