import assert from "node:assert/strict";
import type { Server } from "node:http";
import net, { type AddressInfo } from "node:net";
import { before, describe, test } from "node:test";
import request from "supertest";
import { defaultPathFor, TerrenoApp } from "../../src/app/TerrenoApp.js";
import { IsAny } from "../../src/core/permissions.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { Food, Todo, User } from "../helpers/models.js";
import { buildRestApp, JWT_SECRET, todoOptions } from "../helpers/restApp.js";

useTestDatabase("rest_options");

describe("REST options", () => {
  let alice: TestUser;
  before(async () => {
    alice = await signUp(buildRestApp(), "alice");
  });

  test("responseHandler replaces the default serializer output on every method", async () => {
    const app = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
      .register(
        modelRouter(
          Todo,
          todoOptions({
            responseHandler: (value, method, req) =>
              Array.isArray(value)
                ? value.map((v) => ({ title: v.title, method, via: req.transport }))
                : { title: value.title, method, via: req.transport },
          }),
        ),
      )
      .build();
    const created = await request(app).post("/todos").set(bearer(alice)).send({ title: "shaped" });
    assert.deepEqual(created.body.data, { title: "shaped", method: "create", via: "rest" });
    const listed = await request(app).get("/todos").set(bearer(alice));
    assert.deepEqual(listed.body.data[0], { title: "shaped", method: "list", via: "rest" });
    assert.equal(listed.body.total, 1);
  });

  test("defaultQueryParams apply unless the caller overrides them", async () => {
    const app = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
      .register(modelRouter(Todo, todoOptions({ defaultQueryParams: { completed: false } })))
      .build();
    await request(app).post("/todos").set(bearer(alice)).send({ title: "open" }).expect(201);
    const done = await request(app).post("/todos").set(bearer(alice)).send({ title: "done" });
    await request(app)
      .patch(`/todos/${done.body.data.id}`)
      .set(bearer(alice))
      .send({ completed: true })
      .expect(200);
    const defaults = await request(app).get("/todos").set(bearer(alice));
    assert.ok(defaults.body.data.every((t: { completed: boolean }) => t.completed === false));
    const overridden = await request(app).get("/todos?completed=true").set(bearer(alice));
    assert.ok(overridden.body.data.length >= 1);
    assert.ok(overridden.body.data.every((t: { completed: boolean }) => t.completed === true));
  });

  test("CORS headers follow the configured origins", async () => {
    const app = new TerrenoApp({ cors: { origins: ["https://app.example.com"] } })
      .register(modelRouter(Food, { permissions: { list: [IsAny] } }))
      .build();
    const allowed = await request(app).get("/foods").set("Origin", "https://app.example.com");
    assert.equal(allowed.headers["access-control-allow-origin"], "https://app.example.com");
    // A browser client may read what the server answers for it to act on: the MCP session
    // (2025 era), the sign-in challenge of a 401, when to retry a 429, and that a response to
    // an Idempotency-Key is a replay.
    const exposed = String(allowed.headers["access-control-expose-headers"] ?? "").split(",");
    assert.deepEqual(
      exposed.map((name) => name.trim().toLowerCase()),
      ["mcp-session-id", "www-authenticate", "retry-after", "idempotent-replayed"],
    );
    const other = await request(app).get("/foods").set("Origin", "https://evil.example");
    assert.equal(other.headers["access-control-allow-origin"], undefined);
    const none = new TerrenoApp()
      .register(modelRouter(Food, { permissions: { list: [IsAny] } }))
      .build();
    const noCors = await request(none).get("/foods").set("Origin", "https://app.example.com");
    assert.equal(noCors.headers["access-control-allow-origin"], undefined);
  });

  test("logging emits one line per request; register mounts at the pluralized model path", async () => {
    const lines: string[] = [];
    const app = new TerrenoApp({ logging: (line) => lines.push(line) })
      .register(modelRouter(Food, { permissions: { list: [IsAny] } }))
      .register({
        name: "health",
        register: (express) => express.get("/health", (_req, res) => res.json({ ok: true })),
      })
      .build();
    await request(app).get("/foods?limit=1").expect(200);
    await request(app).get("/health").expect(200);
    assert.match(lines[0], /^GET \/foods 200 \d+\.\dms$/);
    assert.match(lines[1], /^GET \/health 200/);
    assert.equal(defaultPathFor("FoodItem"), "/food-items");
    assert.equal(defaultPathFor("Category"), "/categories");
  });

  test("start() keeps idle connections 65 s by default (past a load balancer's 60 s); the option changes it", async () => {
    const foods = () =>
      new TerrenoApp().register(modelRouter(Food, { permissions: { list: [IsAny] } }));
    const byDefault = await foods().start({ port: 0, handleSignals: false });
    const short = await foods().start({ port: 0, handleSignals: false, keepAliveTimeoutMs: 150 });
    try {
      assert.ok(byDefault.server.headersTimeout > byDefault.server.keepAliveTimeout);
      const kept = await rawGet(byDefault.server);
      assert.match(kept.answer, /^HTTP\/1\.1 200 /);
      assert.match(kept.answer, /\r\nKeep-Alive: timeout=65\r\n/i);
      kept.socket.destroy();
      const ended = await rawGet(short.server);
      // The server, not the client, ends the idle connection, after its answer.
      await ended.closed;
      assert.match(ended.answer, /^HTTP\/1\.1 200 /);
    } finally {
      for (const running of [byDefault, short]) {
        running.server.closeAllConnections();
        running.server.close();
      }
    }
  });

  // Last on purpose: close() also closes the shared Mongoose connection, as shutdown should.
  test("start() listens and close() drains, then refuses", async () => {
    const app = new TerrenoApp().register(modelRouter(Food, { permissions: { list: [IsAny] } }));
    const running = await app.start({ port: 0, handleSignals: false });
    const res = await fetch(`${running.url}/foods`);
    assert.equal(res.status, 200);
    const huge = await fetch(`${running.url}/foods?name=${"x".repeat(20_000)}`);
    assert.equal(huge.status, 431);
    assert.equal(((await huge.json()) as { code: string }).code, "headers_too_large");
    await running.close();
    await assert.rejects(fetch(`${running.url}/foods`));
  });
});

/** One keep-alive GET over a raw socket: the answer once its body arrived, and the socket. */
async function rawGet(server: Server) {
  const { port } = server.address() as AddressInfo;
  const socket = net.connect(port, "127.0.0.1");
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  let answer = "";
  await new Promise<void>((resolve, reject) => {
    socket.on("data", (chunk) => {
      answer += String(chunk);
      if (/\r\n\r\n[\s\S]*\}$/.test(answer)) resolve();
    });
    socket.once("error", reject);
    socket.write("GET /foods HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n");
  });
  return { answer, socket, closed };
}
