/**
 * The 2026-07-28 specification's small musts, on the wire: the `Mcp-Method`/`Mcp-Name`
 * headers checked against the body (HTTP 400, JSON-RPC -32020 HeaderMismatch), `tools/list`
 * in a stable order, `server/discover` listing prompts only when the app has some, and a
 * cache hint on every list.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { createExampleApp } from "../../example-backend/app.js";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { Todo, User } from "../helpers/models.js";
import { JWT_SECRET, todoOptions } from "../helpers/restApp.js";

useTestDatabase("mcp_spec_musts");

const MODERN = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "spec-musts", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A 2026-07-28 request; `headers` replaces the standard ones it names. */
function modern(
  app: Express,
  token: string,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string | undefined> = {},
) {
  const name = (params.name ?? params.uri) as string | undefined;
  const standard: Record<string, string | undefined> = {
    "mcp-protocol-version": MODERN,
    "mcp-method": method,
    ...(name ? { "mcp-name": name } : {}),
    ...headers,
  };
  const req = request(app)
    .post("/mcp")
    .set("Accept", "application/json, text/event-stream")
    .set("Content-Type", "application/json")
    .set("Authorization", `Bearer ${token}`);
  for (const [key, value] of Object.entries(standard)) if (value !== undefined) req.set(key, value);
  return req.send(
    JSON.stringify({ jsonrpc: "2.0", id: 7, method, params: { ...params, _meta: META } }),
  );
}

describe("the specification's small musts", () => {
  const app = createExampleApp({ jwtSecret: "spec-musts-secret", env: {} }).build();
  let alice: TestUser;
  before(async () => {
    alice = await signUp(app, "alice");
  });

  test("Mcp-Method and Mcp-Name must match the body: 400 with -32020", async () => {
    const cases: Array<[string, Record<string, unknown>, Record<string, string>]> = [
      ["tools/list", {}, { "mcp-method": "prompts/list" }],
      ["tools/call", { name: "whoami", arguments: {} }, { "mcp-name": "todos_list" }],
      ["prompts/get", { name: "plan_my_day" }, { "mcp-name": "review_todo" }],
      ["resources/read", { uri: "terreno://todos/x" }, { "mcp-name": "terreno://todos/y" }],
    ];
    for (const [method, params, headers] of cases) {
      const res = await modern(app, alice.token, method, params, headers);
      assert.equal(res.status, 400, `${method}: ${res.text.slice(0, 200)}`);
      assert.equal(res.body.error.code, -32020, method);
    }
    // Absent when required: refused the same way.
    const missing = await modern(
      app,
      alice.token,
      "prompts/get",
      { name: "plan_my_day" },
      {
        "mcp-name": undefined,
      },
    );
    assert.equal(missing.status, 400, missing.text.slice(0, 200));
    assert.equal(missing.body.error.code, -32020);
    const noMethod = await modern(app, alice.token, "tools/list", {}, { "mcp-method": undefined });
    assert.equal(noMethod.status, 400, noMethod.text.slice(0, 200));
    assert.equal(noMethod.body.error.code, -32020);
    // Matching headers pass.
    const ok = await modern(app, alice.token, "prompts/get", { name: "plan_my_day" });
    assert.equal(ok.status, 200, ok.text.slice(0, 300));
    assert.equal(ok.body.result.messages[0].role, "user");
  });

  test("tools/list is in a stable order: by name, the same every time and in both eras", async () => {
    const modernNames = async () =>
      (
        (await modern(app, alice.token, "tools/list")).body.result.tools as Array<{ name: string }>
      ).map((tool) => tool.name);
    const first = await modernNames();
    assert.ok(first.length > 5);
    assert.deepEqual(first, [...first].sort());
    assert.deepEqual(await modernNames(), first);
    const legacy = await request(app)
      .post("/mcp")
      .set("Accept", "application/json, text/event-stream")
      .set("Authorization", `Bearer ${alice.token}`)
      .send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    assert.deepEqual(
      (legacy.body.result.tools as Array<{ name: string }>).map((tool) => tool.name),
      first,
    );
  });

  test("server/discover lists prompts (and completions) only when the app has prompts", async () => {
    const withPrompts = await modern(app, alice.token, "server/discover");
    assert.equal(withPrompts.status, 200, withPrompts.text.slice(0, 300));
    const { capabilities } = withPrompts.body.result;
    assert.deepEqual(capabilities.prompts, { listChanged: false });
    assert.ok(capabilities.completions);
    assert.ok(capabilities.tools);
    // Neither tasks nor subscriptions exist yet, so neither is declared.
    assert.equal(capabilities.tasks, undefined);
    assert.equal(capabilities.resources.subscribe, false);

    const plain = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
      .register(modelRouter(Todo, todoOptions()))
      .build();
    const bob = await signUp(plain, "bob");
    const without = await modern(plain, bob.token, "server/discover");
    assert.equal(without.status, 200, without.text.slice(0, 300));
    assert.equal(without.body.result.capabilities.prompts, undefined);
    const list = await modern(plain, bob.token, "prompts/list");
    assert.equal(list.body.error.code, -32601);
  });

  test("every list carries a private cache hint that keeps nothing", async () => {
    for (const method of [
      "tools/list",
      "prompts/list",
      "resources/list",
      "resources/templates/list",
      "server/discover",
    ]) {
      const res = await modern(app, alice.token, method);
      assert.equal(res.status, 200, `${method}: ${res.text.slice(0, 200)}`);
      assert.equal(res.body.result.cacheScope, "private", method);
      assert.equal(res.body.result.ttlMs, 0, method);
    }
  });
});
