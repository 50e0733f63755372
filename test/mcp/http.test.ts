import assert from "node:assert/strict";
import { describe, test } from "node:test";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { betterAuthPlugin, createBetterAuth } from "../../src/auth/betterAuth.js";
import { IsAny } from "../../src/core/permissions.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { signedUp } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { rpc, toolCallMessage } from "../helpers/mcpWire.js";
import { Food, Todo, User } from "../helpers/models.js";
import { buildRestApp, foodOptions, JWT_SECRET, todoOptions } from "../helpers/restApp.js";

useTestDatabase("mcp_http");

describe("MCP over raw HTTP", () => {
  const app = buildRestApp();
  const [alice] = signedUp(app, "alice");

  test("GET and DELETE answer 405 with Allow: POST", async () => {
    for (const method of ["get", "delete"] as const) {
      const res = await request(app)[method]("/mcp").set("Authorization", `Bearer ${alice.token}`);
      assert.equal(res.status, 405);
      assert.equal(res.headers.allow, "POST");
    }
  });

  test("a browser origin that is not allowed gets 403; localhost and configured origins pass", async () => {
    const evil = await rpc(app, { jsonrpc: "2.0", id: 1, method: "tools/list" }, alice.token).set(
      "Origin",
      "https://evil.example",
    );
    assert.equal(evil.status, 403);
    const local = await rpc(app, { jsonrpc: "2.0", id: 1, method: "tools/list" }, alice.token).set(
      "Origin",
      "http://localhost:5173",
    );
    assert.equal(local.status, 200);
    const configured = new TerrenoApp({
      userModel: User,
      auth: { jwt: { secret: JWT_SECRET } },
      mcp: { allowedOrigins: ["https://app.example.com"] },
    })
      .register(modelRouter(Todo, todoOptions()))
      .build();
    const ok = await rpc(
      configured,
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      alice.token,
    ).set("Origin", "https://app.example.com");
    assert.equal(ok.status, 200);
  });

  test("missing or invalid credentials get 401 with a WWW-Authenticate: Bearer challenge", async () => {
    for (const token of [undefined, "not-a-token", `${alice.token}x`]) {
      const res = await rpc(app, { jsonrpc: "2.0", id: 1, method: "tools/list" }, token);
      assert.equal(res.status, 401, String(token));
      assert.match(String(res.headers["www-authenticate"]), /^Bearer/);
      assert.equal(res.body.jsonrpc, "2.0");
    }
  });

  test("stateless: tools/list and tools/call work without initialize", async () => {
    const list = await rpc(app, { jsonrpc: "2.0", id: 1, method: "tools/list" }, alice.token);
    assert.equal(list.status, 200);
    assert.match(String(list.headers["content-type"]), /application\/json/);
    assert.ok(list.body.result.tools.length > 0);
    const call = await rpc(app, toolCallMessage(2, "todos_create", { title: "raw" }), alice.token);
    assert.equal(call.body.result.structuredContent.data.title, "raw");
  });

  test("protocol faults are JSON-RPC errors with the right codes", async () => {
    const unknownTool = await rpc(app, toolCallMessage(1, "nope_list", {}), alice.token);
    assert.equal(unknownTool.body.error.code, -32602);
    const unknownMethod = await rpc(
      app,
      { jsonrpc: "2.0", id: 2, method: "nope/nope" },
      alice.token,
    );
    assert.equal(unknownMethod.body.error.code, -32601);
    const envelope = await rpc(app, { hello: "world" }, alice.token);
    assert.equal(envelope.status, 400);
    assert.equal(envelope.body.error.code, -32600);
    const scalar = await rpc(app, "null", alice.token);
    assert.equal(scalar.status, 400);
    assert.equal(scalar.body.error.code, -32600, "valid JSON that is not a request is -32600");
    const malformed = await rpc(app, '{"jsonrpc": "2.0", ', alice.token);
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.error.code, -32700);
    const batch = await rpc(app, [{ jsonrpc: "2.0", id: 1, method: "tools/list" }], alice.token);
    assert.equal(batch.status, 400);
    assert.equal(batch.body.error.code, -32600);
    const noAccept = await request(app)
      .post("/mcp")
      .set("Authorization", `Bearer ${alice.token}`)
      .set("Content-Type", "application/json")
      .set("Accept", "text/html")
      .send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    assert.equal(noAccept.status, 406);
  });

  test("unexpected faults are -32603 with no internals", async () => {
    const original = console.error;
    const logged: unknown[] = [];
    console.error = (...args: unknown[]) => logged.push(args);
    try {
      const broken = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
        .register(
          modelRouter(
            Todo,
            todoOptions({
              queryFilter: () => {
                throw new Error("SECRET driver detail");
              },
            }),
          ),
        )
        .build();
      const res = await rpc(broken, toolCallMessage(1, "todos_list", {}), alice.token);
      assert.equal(res.body.error.code, -32603);
      assert.doesNotMatch(JSON.stringify(res.body), /SECRET/);
      assert.ok(logged.length >= 1);
    } finally {
      console.error = original;
    }
  });

  test("anonymous callers are served only where allowAnonymous is set", async () => {
    const open = new TerrenoApp()
      .register(
        modelRouter(
          Food,
          foodOptions({ permissions: { list: [IsAny], read: [IsAny] }, allowAnonymous: true }),
        ),
      )
      .register(
        "/todos",
        modelRouter(
          Todo,
          todoOptions({ permissions: { list: [IsAny] }, mcp: { methods: ["list"] } }),
        ),
      )
      .build();
    const foods = await rpc(open, toolCallMessage(1, "foods_list", {}));
    assert.equal(foods.status, 200);
    assert.equal(foods.body.result.isError, undefined);
    // Todos do not serve anonymous callers, so to one their tools do not exist.
    const listed = await rpc(open, { jsonrpc: "2.0", id: 2, method: "tools/list" });
    assert.deepEqual(
      listed.body.result.tools.map((tool: { name: string }) => tool.name),
      ["foods_list", "foods_read"],
    );
    const todos = await rpc(open, toolCallMessage(3, "todos_list", {}));
    assert.equal(todos.body.error.code, -32602);
    assert.match(todos.body.error.message, /^unknown_tool: Unknown tool: todos_list\./);
  });

  test("a Better Auth session token authenticates MCP calls through the same resolver", async () => {
    const ORIGIN = "http://localhost:3000";
    const auth = createBetterAuth({
      secret: "better-auth-test-secret-0123456789abcdefghijklmnop",
      baseURL: ORIGIN,
      trustedOrigins: [ORIGIN],
      logger: { disabled: true },
    });
    const baApp = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
      .register(betterAuthPlugin(auth, { userModel: User, linkUnverifiedEmails: true }))
      .register(modelRouter(Todo, todoOptions()))
      .build();
    const signUpRes = await request(baApp)
      .post("/api/auth/sign-up/email")
      .set("Origin", ORIGIN)
      .send({
        email: `ba-${Date.now()}@example.com`,
        password: "correct horse battery",
        name: "Ba",
      });
    assert.equal(signUpRes.status, 200);
    const token = signUpRes.headers["set-auth-token"];
    const created = await rpc(baApp, toolCallMessage(1, "todos_create", { title: "ba" }), token);
    assert.equal(created.status, 200);
    assert.equal(created.body.result.structuredContent.data.ownerId.name, "Ba");
  });

  test("bare excludeFields hide a field inside populated documents; mcpResponseHandler shapes results", async () => {
    const shaped = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
      .register(
        modelRouter(
          Todo,
          todoOptions({
            populatePaths: [{ path: "ownerId", fields: ["name", "email"] }],
            mcp: {
              methods: ["create", "read"],
              excludeFields: ["internalNote", "email"],
              mcpResponseHandler: (value, method) => ({ ...(value as object), shapedFor: method }),
            },
          }),
        ),
      )
      .build();
    const created = await rpc(
      shaped,
      toolCallMessage(1, "todos_create", { title: "deep" }),
      alice.token,
    );
    const data = created.body.result.structuredContent.data;
    assert.equal(data.shapedFor, "create");
    assert.equal(data.ownerId.name, "alice");
    assert.equal(data.ownerId.email, undefined, "a bare name hides the field at every depth");
    const rest = await request(shaped)
      .get(`/todos/${data.id}`)
      .set("Authorization", `Bearer ${alice.token}`);
    assert.equal(rest.body.data.ownerId.email, alice.email, "REST still sees it");
  });
});
