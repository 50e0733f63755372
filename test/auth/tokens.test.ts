/**
 * Personal access tokens through real HTTP and real MCP clients: the REST lifecycle (create,
 * list, revoke), stored hashed, scopes (a read token sees and calls only read-only tools and may
 * only GET), revocation and expiry effective on the next request, a token cannot mint tokens,
 * creation is rate limited, and the AI SDK tools follow the same scope rule.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, test } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { getMCPTools } from "../../src/ai/getMCPTools.js";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { ACCESS_TOKEN_COLLECTION, accessTokenModel } from "../../src/auth/personalTokens.js";
import type { User as Caller } from "../../src/core/types.js";
import type { AuditEvent } from "../../src/ops/audit.js";
import type { TerrenoAppOptions } from "../../src/plugin/options.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { bearer, signedUp, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { CLIENT_KINDS, connectClient, useListening } from "../helpers/mcpClients.js";
import { rpc, toolCallMessage } from "../helpers/mcpWire.js";
import { Todo, User } from "../helpers/models.js";
import { JWT_SECRET, restTerreno, todoOptions } from "../helpers/restApp.js";

useTestDatabase("auth_tokens");

const TOKEN_SHAPE = /^tmcp_[A-Za-z0-9_-]{43}$/;

const audit: AuditEvent[] = [];

function buildApp(): Express {
  return restTerreno({
    onAudit: (event) => {
      audit.push(event);
    },
  }).build();
}

async function createToken(
  app: Express,
  user: TestUser,
  body: Record<string, unknown>,
): Promise<{ id: string; token: string; scope: string; expiresAt: string; name: string }> {
  const res = await request(app).post("/auth/tokens").set(bearer(user)).send(body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}

/** An app with Todos alone, for a test that needs other auth or limits than the suite's. */
function todosApp(options: Omit<TerrenoAppOptions, "userModel">): Express {
  return new TerrenoApp({ userModel: User, ...options })
    .register(modelRouter(Todo, todoOptions()))
    .build();
}

/** Signs `name` up on `app` and creates two read tokens: the answer to creating a third. */
async function thirdToken(app: Express, name: string) {
  const user = await signUp(app, name);
  await createToken(app, user, { name: "1", scope: "read" });
  await createToken(app, user, { name: "2", scope: "read" });
  const third = await request(app)
    .post("/auth/tokens")
    .set(bearer(user))
    .send({ name: "3", scope: "read" });
  return { user, third };
}

const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

describe("personal access tokens", () => {
  const app = buildApp();
  const server = useListening(app);
  const [alice, bob] = signedUp(app, "alice", "bob");

  test("lifecycle over REST: created once with its value, listed without it, revoked at once", async () => {
    const created = await request(app)
      .post("/auth/tokens")
      .set(bearer(alice))
      .send({ name: "laptop CLI", scope: "write", expiresInDays: 30 });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.headers["cache-control"], "no-store");
    const data = created.body.data;
    assert.deepEqual(Object.keys(data).sort(), ["expiresAt", "id", "name", "scope", "token"]);
    assert.match(data.token, TOKEN_SHAPE);
    assert.equal(data.name, "laptop CLI");
    assert.equal(data.scope, "write");
    const days = (Date.parse(data.expiresAt) - Date.now()) / 86_400_000;
    assert.ok(days > 29.9 && days <= 30, String(days));

    // Stored hashed: the value is nowhere in the collection.
    const raw = await Todo.db.collection(ACCESS_TOKEN_COLLECTION).findOne({ name: "laptop CLI" });
    assert.ok(raw);
    assert.equal(raw.tokenHash, createHash("sha256").update(data.token).digest("hex"));
    assert.ok(!JSON.stringify(raw).includes(data.token.slice(5)));

    // The token authenticates REST; lastUsedAt is recorded.
    const me = await request(app).get("/auth/me").set(auth(data.token));
    assert.equal(me.status, 200);
    assert.equal(me.body.data.id, alice.userId);

    const listed = await request(app).get("/auth/tokens").set(bearer(alice));
    assert.equal(listed.status, 200);
    const entry = listed.body.data.find((t: { id: string }) => t.id === data.id);
    assert.deepEqual(Object.keys(entry).sort(), [
      "createdAt",
      "expiresAt",
      "id",
      "lastUsedAt",
      "name",
      "scope",
    ]);
    assert.ok(entry.lastUsedAt, "lastUsedAt is set after a use");
    assert.ok(!JSON.stringify(listed.body).includes(data.token));
    // Bob sees none of Alice's tokens, and cannot revoke them (404, not 403: no oracle).
    const bobs = await request(app).get("/auth/tokens").set(bearer(bob));
    assert.ok(!bobs.body.data.some((t: { id: string }) => t.id === data.id));
    const foreign = await request(app).delete(`/auth/tokens/${data.id}`).set(bearer(bob));
    assert.equal(foreign.status, 404);
    assert.equal((await request(app).get("/auth/me").set(auth(data.token))).status, 200);

    const revoked = await request(app).delete(`/auth/tokens/${data.id}`).set(bearer(alice));
    assert.equal(revoked.status, 204);
    const afterRevoke = await request(app).get("/auth/me").set(auth(data.token));
    assert.equal(afterRevoke.status, 401);
    assert.equal(afterRevoke.body.code, "unauthenticated");
    assert.equal(
      (await request(app).delete(`/auth/tokens/${data.id}`).set(bearer(alice))).status,
      404,
    );
    assert.equal(
      (await request(app).delete("/auth/tokens/not-an-id").set(bearer(alice))).status,
      404,
    );
  });

  test("the body is checked field by field; the default lifetime is 90 days", async () => {
    const bad = [
      [{ scope: "read" }, "name"],
      [{ name: "x", scope: "admin" }, "scope"],
      [{ name: "x", scope: "read", expiresInDays: 0 }, "expiresInDays"],
      [{ name: "x", scope: "read", expiresInDays: 1.5 }, "expiresInDays"],
      [{ name: "x", scope: "read", expiresInDays: 366 }, "expiresInDays"],
      [{ name: "x", scope: "read", expiresInDays: "7" }, "expiresInDays"],
      [{ name: "x", scope: "read", userId: bob.userId }, "userId"],
      [{ name: " ", scope: "read" }, "name"],
    ] as const;
    for (const [body, field] of bad) {
      const res = await request(app).post("/auth/tokens").set(bearer(alice)).send(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, "validation_failed");
      assert.ok(res.body.fields?.[field], `${JSON.stringify(body)} → ${JSON.stringify(res.body)}`);
    }
    const plain = await createToken(app, alice, { name: "default", scope: "read" });
    const days = (Date.parse(plain.expiresAt) - Date.now()) / 86_400_000;
    assert.ok(days > 89.9 && days <= 90, String(days));
  });

  test("only a session may create tokens: a token (read or write) gets 403, nobody 401", async () => {
    const write = await createToken(app, alice, { name: "w", scope: "write" });
    const read = await createToken(app, alice, { name: "r", scope: "read" });
    for (const token of [write.token, read.token]) {
      const res = await request(app)
        .post("/auth/tokens")
        .set(auth(token))
        .send({ name: "child", scope: "read" });
      assert.equal(res.status, 403);
      assert.equal(res.body.code, "forbidden");
    }
    // Nor manage the account's sessions.
    for (const [path, body] of [
      ["/auth/logout", {}],
      ["/auth/password", { currentPassword: "correct horse battery", newPassword: "x".repeat(12) }],
    ] as const) {
      const res = await request(app).post(path).set(auth(write.token)).send(body);
      assert.equal(res.status, 403, path);
    }
    const anonymous = await request(app).post("/auth/tokens").send({ name: "a", scope: "read" });
    assert.equal(anonymous.status, 401);
    // A write token may list and revoke the user's tokens (a CLI's logout); a read token may list.
    assert.equal((await request(app).get("/auth/tokens").set(auth(read.token))).status, 200);
    const readRevoke = await request(app).delete(`/auth/tokens/${write.id}`).set(auth(read.token));
    assert.equal(readRevoke.status, 403);
    assert.equal(readRevoke.body.detail, "This token's scope is read-only.");
    const selfRevoke = await request(app).delete(`/auth/tokens/${write.id}`).set(auth(write.token));
    assert.equal(selfRevoke.status, 204);
    assert.equal((await request(app).get("/auth/me").set(auth(write.token))).status, 401);
  });

  test("a write token works on REST and on MCP with every client; writes are audited with its id", async () => {
    const { id, token } = await createToken(app, alice, { name: "mcp", scope: "write" });
    const rest = await request(app).post("/todos").set(auth(token)).send({ title: "from a PAT" });
    assert.equal(rest.status, 201, JSON.stringify(rest.body));
    const event = audit.find((e) => e.documentId === rest.body.data.id);
    assert.equal(event?.tokenId, id);
    assert.equal(event?.userId, alice.userId);

    for (const kind of CLIENT_KINDS) {
      const client = await connectClient(kind, server.url, token);
      const names = (await client.listTools()).map((t) => t.name);
      assert.ok(names.includes("todos_create"), kind);
      const created = await client.callTool("todos_create", { title: `via ${kind}` });
      assert.ok(!created.isError, JSON.stringify(created));
      const listed = await client.callTool("todos_list", { filter: { title: `via ${kind}` } });
      assert.equal((listed.structuredContent?.data as unknown[] | undefined)?.length, 1, kind);
      await client.close();
    }
  });

  test("a read token: only read-only tools, write tools unknown, REST GET only", async () => {
    const { token } = await createToken(app, alice, { name: "reader", scope: "read" });
    const own = await request(app).post("/todos").set(bearer(alice)).send({ title: "readable" });
    const todoId = own.body.data.id;

    // REST: GET fine, every write 403 with a clear detail.
    assert.equal((await request(app).get("/todos").set(auth(token))).status, 200);
    assert.equal((await request(app).get(`/todos/${todoId}`).set(auth(token))).status, 200);
    for (const res of [
      await request(app).post("/todos").set(auth(token)).send({ title: "nope" }),
      await request(app).patch(`/todos/${todoId}`).set(auth(token)).send({ title: "nope" }),
      await request(app).delete(`/todos/${todoId}`).set(auth(token)),
    ]) {
      assert.equal(res.status, 403);
      assert.equal(res.body.code, "forbidden");
      assert.equal(res.body.detail, "This token's scope is read-only.");
    }
    assert.equal((await Todo.countDocuments({ title: "nope" })).valueOf(), 0);

    for (const kind of CLIENT_KINDS) {
      const client = await connectClient(kind, server.url, token);
      const tools = await client.listTools();
      assert.ok(tools.length > 0);
      for (const t of tools) {
        assert.equal((t.annotations as { readOnlyHint?: boolean })?.readOnlyHint, true, t.name);
      }
      const names = tools.map((t) => t.name);
      assert.ok(names.includes("todos_list") && names.includes("foods_read"), kind);
      assert.ok(!names.includes("todos_create"), kind);
      const read = await client.callTool("todos_read", { id: todoId });
      assert.ok(!read.isError, JSON.stringify(read));
      await client.close();
    }

    // A hidden write tool answers exactly as a tool that does not exist.
    const hidden = await rpc(app, toolCallMessage(1, "todos_create", { title: "x" }), token);
    const missing = await rpc(app, toolCallMessage(1, "todos_nope", {}), token);
    assert.equal(hidden.status, 200);
    assert.equal(hidden.body.error?.code, -32602);
    assert.equal(missing.body.error?.code, -32602);
    assert.equal(
      hidden.body.error.message.replace("todos_create", "NAME"),
      missing.body.error.message.replace("todos_nope", "NAME"),
    );
    // And through a real client: the call is refused as an unknown tool.
    const client = await connectClient("v1", server.url, token);
    await assert.rejects(client.callTool("todos_create", { title: "x" }), (error: Error) => {
      assert.match(error.message, /Unknown tool: todos_create/);
      assert.equal((error as Error & { code?: number }).code, -32602);
      return true;
    });
    await client.close();
    assert.equal(await Todo.countDocuments({ title: "x" }), 0);
  });

  test("a revoked token is refused at once, on REST and MCP", async () => {
    const { id, token } = await createToken(app, alice, { name: "soon revoked", scope: "write" });
    const client = await connectClient("v2-auto", server.url, token);
    assert.ok((await client.listTools()).length > 0);
    assert.equal((await request(app).delete(`/auth/tokens/${id}`).set(bearer(alice))).status, 204);

    assert.equal((await request(app).get("/todos").set(auth(token))).status, 401);
    const mcp = await rpc(app, { jsonrpc: "2.0", id: 1, method: "tools/list" }, token);
    assert.equal(mcp.status, 401);
    assert.match(String(mcp.headers["www-authenticate"]), /error="invalid_token"/);
    // The already-connected client's next request fails too.
    await assert.rejects(client.listTools());
    await client.close().catch(() => {});
    await assert.rejects(connectClient("v1", server.url, token));
  });

  test("an expired token is refused (expiry is checked on read, whatever the TTL monitor does)", async () => {
    const { id, token } = await createToken(app, alice, { name: "expiring", scope: "write" });
    assert.equal((await request(app).get("/todos").set(auth(token))).status, 200);
    await accessTokenModel(User.db)
      .updateOne({ _id: id }, { $set: { expiresAt: new Date(Date.now() - 1000) } })
      .exec();
    const rest = await request(app).get("/todos").set(auth(token));
    assert.equal(rest.status, 401);
    assert.match(rest.body.detail, /expired|revoked/);
    assert.equal(
      (await rpc(app, { jsonrpc: "2.0", id: 1, method: "tools/list" }, token)).status,
      401,
    );
    // Expired tokens are not listed.
    const listed = await request(app).get("/auth/tokens").set(bearer(alice));
    assert.ok(!listed.body.data.some((t: { id: string }) => t.id === id));
  });

  test("a malformed or unknown tmcp_ token is 401, and a disabled user's token stops working", async () => {
    for (const token of ["tmcp_short", `tmcp_${"A".repeat(43)}`]) {
      const res = await request(app).get("/todos").set(auth(token));
      assert.equal(res.status, 401, token);
    }
    const carol = await signUp(app, "carol");
    const { token } = await createToken(app, carol, { name: "c", scope: "read" });
    assert.equal((await request(app).get("/todos").set(auth(token))).status, 200);
    await User.updateOne({ _id: carol.userId }, { $set: { disabled: true } });
    assert.equal((await request(app).get("/todos").set(auth(token))).status, 401);
  });

  test("a user may hold a bounded number of tokens", async () => {
    const capped = todosApp({
      auth: { jwt: { secret: JWT_SECRET }, personalTokens: { maxPerUser: 2 } },
    });
    const { third } = await thirdToken(capped, "dave");
    assert.equal(third.status, 409);
    assert.equal(third.body.code, "conflict");
  });

  test("personalTokens: false turns the routes and the provider off", async () => {
    const off = todosApp({ auth: { jwt: { secret: JWT_SECRET }, personalTokens: false } });
    const { token } = await createToken(app, alice, { name: "elsewhere", scope: "write" });
    assert.equal((await request(off).get("/todos").set(auth(token))).status, 401);
    const route = await request(off)
      .post("/auth/tokens")
      .set(bearer(alice))
      .send({ name: "x", scope: "read" });
    assert.equal(route.status, 404);
  });

  test("creation is rate limited per IP with the auth routes", async () => {
    const limited = todosApp({
      auth: { jwt: { secret: JWT_SECRET } },
      rateLimit: { auth: { perIp: { points: 3, duration: 60 }, lockout: false } },
    });
    // signup spends one point of the same per-IP bucket.
    const { user: erin, third: res } = await thirdToken(limited, "erin");
    assert.equal(res.status, 429);
    assert.ok(res.headers["retry-after"]);
    // Listing is not limited.
    assert.equal((await request(limited).get("/auth/tokens").set(bearer(erin))).status, 200);
  });

  test("getMCPTools follows the same rule: a read-scoped user gets read tools, writes are refused", async () => {
    const reader: Caller = { id: alice.userId, scopes: ["read"] };
    const tools = getMCPTools({
      app: new TerrenoApp().register(modelRouter(Todo, todoOptions())),
      user: reader,
    });
    assert.deepEqual(Object.keys(tools).sort(), ["todos_list", "todos_read"]);
    // A context-bound tool learns its caller per call: the core refuses the write.
    const all = getMCPTools({ app: new TerrenoApp().register(modelRouter(Todo, todoOptions())) });
    const create = all.todos_create;
    assert.ok(create?.execute);
    const out = await create.execute(
      { title: "scoped" },
      { toolCallId: "1", messages: [], context: { user: reader } },
    );
    assert.equal((out as { error?: { code?: string } }).error?.code, "forbidden");
    assert.equal(await Todo.countDocuments({ title: "scoped" }), 0);
  });
});
