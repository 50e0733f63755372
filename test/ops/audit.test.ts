import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import type { ModelMessage, ToolSet } from "ai";
import type { Express } from "express";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import { getMCPTools } from "../../src/ai/index.js";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { toUser } from "../../src/auth/userPlugin.js";
import { callContext } from "../../src/core/services.js";
import type { User as Caller, RequestContext } from "../../src/core/types.js";
import { type AuditEvent, auditEventOf } from "../../src/ops/audit.js";
import { auditToMongo } from "../../src/ops/auditMongo.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { STANDALONE_SERVICES } from "../../src/tools/services.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import {
  connectClient,
  type Listening,
  listen,
  type McpTestClient,
  toolError,
} from "../helpers/mcpClients.js";
import { createTodo } from "../helpers/mcpWire.js";
import { Todo, User } from "../helpers/models.js";
import { OWNED } from "../helpers/permissions.js";
import { JWT_SECRET, restTerreno, todoOptions } from "../helpers/restApp.js";
import { errorLogger } from "../helpers/serverLog.js";

// A model with a nested object and a Mixed field: nested paths are listed, Mixed keys (data) are not.
const noteSchema = new Schema({
  title: { type: String, required: true },
  meta: { color: String, size: Number },
  extra: Schema.Types.Mixed,
  ownerId: { type: Schema.Types.ObjectId, ref: "User" },
});
const AuditNote = mongoose.models.AuditNote ?? mongoose.model("AuditNote", noteSchema);

useTestDatabase("ops_audit");

/** A value that must never reach an audit event. */
const SECRET = "SECRET-VALUE-7d1f";

const execOptions = { toolCallId: "call-1", messages: [] as ModelMessage[], context: {} };

async function execute(tools: ToolSet, name: string, input: unknown) {
  const run = tools[name]?.execute;
  assert.ok(run, `${name} has execute`);
  return (await run(input, execOptions)) as Record<string, unknown>;
}

function assertNoValues(event: AuditEvent): void {
  assert.ok(!JSON.stringify(event).includes(SECRET), `no value in ${JSON.stringify(event)}`);
}

describe("audit events", () => {
  const events: AuditEvent[] = [];
  const audit = auditToMongo({ ttlDays: 7 });
  let terreno: TerrenoApp;
  let app: Express;
  let server: Listening;
  let alice: TestUser;
  let bob: TestUser;
  let aliceCaller: Caller;
  let aliceTodo: string;

  const expired = {
    timestamp: new Date(Date.now() - 30 * 86_400_000),
    surface: "rest",
    operation: "expired-event",
    action: "update",
    model: "Todo",
    outcome: "success",
    fields: [],
  };

  before(async () => {
    // Older than ttlDays: gone once retention runs (MongoDB's TTL monitor, or the plugin's pruning).
    await audit.model.collection.insertOne({ ...expired });
    terreno = restTerreno({
      onAudit: (event) => {
        events.push(event);
      },
    })
      .register(
        modelRouter(AuditNote, {
          ...OWNED,
        }),
      )
      .register(audit);
    app = terreno.build();
    server = await listen(app);
    alice = await signUp(app, "alice");
    bob = await signUp(app, "bob");
    aliceCaller = toUser(await User.findById(alice.userId).orFail());
    aliceTodo = await createTodo(app, alice, "alice's todo");
  });
  after(() => server.close());
  beforeEach(() => {
    events.length = 0;
  });

  test("REST PATCH: one event with who, where, what and the field names, no values", async () => {
    const before = Date.now();
    await request(app)
      .patch(`/todos/${aliceTodo}`)
      .set(bearer(alice))
      .send({ title: SECRET, priority: 3 })
      .expect(200);
    assert.equal(events.length, 1, JSON.stringify(events));
    const [event] = events;
    assert.ok(event.timestamp instanceof Date);
    assert.ok(event.timestamp.getTime() >= before && event.timestamp.getTime() <= Date.now());
    assert.deepEqual(
      { ...event, timestamp: undefined },
      {
        timestamp: undefined,
        userId: alice.userId,
        surface: "rest",
        operation: "PATCH /todos/:id",
        action: "update",
        model: "Todo",
        documentId: aliceTodo,
        outcome: "success",
        fields: ["title", "priority"],
      },
    );
    assertNoValues(event);
  });

  test("REST POST and DELETE: the created id and fields; a delete names no field", async () => {
    const created = await request(app)
      .post("/todos")
      .set(bearer(alice))
      .send({ title: SECRET, tags: [SECRET] })
      .expect(201);
    const id = created.body.data.id as string;
    await request(app).delete(`/todos/${id}`).set(bearer(alice)).expect(204);
    assert.equal(events.length, 2);
    assert.equal(events[0].operation, "POST /todos");
    assert.equal(events[0].action, "create");
    assert.equal(events[0].documentId, id);
    assert.deepEqual(events[0].fields, ["title", "tags"]);
    assert.equal(events[1].operation, "DELETE /todos/:id");
    assert.equal(events[1].action, "delete");
    assert.equal(events[1].documentId, id);
    assert.deepEqual(events[1].fields, []);
    for (const event of events) assertNoValues(event);
  });

  test("nested paths are listed; the keys of a Mixed field (data) are not", async () => {
    const created = await request(app)
      .post("/audit-notes")
      .set(bearer(alice))
      .send({ title: "note" })
      .expect(201);
    events.length = 0;
    await request(app)
      .patch(`/audit-notes/${created.body.data.id}`)
      .set(bearer(alice))
      .send({ meta: { color: SECRET }, extra: { [SECRET]: SECRET } })
      .expect(200);
    assert.equal(events.length, 1);
    assert.deepEqual(events[0].fields, ["meta", "meta.color", "extra"]);
    assertNoValues(events[0]);
  });

  test("a refused REST write is audited with its error code and the document id", async () => {
    await request(app)
      .patch(`/todos/${aliceTodo}`)
      .set(bearer(bob))
      .send({ title: SECRET })
      .expect(404);
    assert.equal(events.length, 1);
    assert.equal(events[0].outcome, "not_found");
    assert.equal(events[0].userId, bob.userId);
    assert.equal(events[0].documentId, aliceTodo);
    assert.deepEqual(events[0].fields, ["title"]);
    assertNoValues(events[0]);

    events.length = 0;
    await request(app).patch("/todos/not-an-id").set(bearer(bob)).send({ title: "x" }).expect(404);
    assert.equal(events.length, 1);
    assert.equal(events[0].documentId, undefined, "a malformed id is not recorded");

    events.length = 0;
    await request(app).post("/todos").set(bearer(bob)).send({ title: 12, bogus: SECRET });
    assert.equal(events.length, 1);
    assert.equal(events[0].outcome, "validation_failed");
    assert.deepEqual(events[0].fields, ["title"], "only schema paths are named");
  });

  test("reads and lists are not audited", async () => {
    await request(app).get(`/todos/${aliceTodo}`).set(bearer(alice)).expect(200);
    await request(app).get("/todos").set(bearer(alice)).expect(200);
    assert.equal(events.length, 0);
  });

  describe("over MCP", () => {
    let asAlice: McpTestClient;
    let asBob: McpTestClient;
    before(async () => {
      asAlice = await connectClient("v2-auto", server.url, alice.token);
      asBob = await connectClient("v1", server.url, bob.token);
    });
    after(async () => {
      await asAlice.close();
      await asBob.close();
    });

    test("a tool write: one event named after the tool", async () => {
      const result = await asAlice.callTool("todos_update", {
        id: aliceTodo,
        title: SECRET,
        completed: true,
      });
      assert.equal(result.isError, undefined, JSON.stringify(result));
      assert.equal(events.length, 1, JSON.stringify(events));
      const [event] = events;
      assert.equal(event.surface, "mcp");
      assert.equal(event.operation, "todos_update");
      assert.equal(event.action, "update");
      assert.equal(event.model, "Todo");
      assert.equal(event.documentId, aliceTodo);
      assert.equal(event.userId, alice.userId);
      assert.equal(event.outcome, "success");
      assert.deepEqual(event.fields, ["title", "completed"]);
      assertNoValues(event);
    });

    test("a refused tool write: not_found for another user's todo", async () => {
      const result = await asBob.callTool("todos_update", { id: aliceTodo, title: SECRET });
      assert.equal(result.isError, true);
      assert.equal(toolError(result).code, "not_found");
      assert.equal(events.length, 1);
      assert.equal(events[0].outcome, "not_found");
      assert.equal(events[0].userId, bob.userId);
      assert.equal(events[0].documentId, aliceTodo);
      assertNoValues(events[0]);
    });

    test("arguments refused before the core are audited once", async () => {
      const result = await asAlice.callTool("todos_create", { title: 42, priority: SECRET });
      assert.equal(result.isError, true);
      assert.equal(events.length, 1, JSON.stringify(events));
      assert.equal(events[0].outcome, "validation_failed");
      assert.equal(events[0].operation, "todos_create");
      assert.deepEqual(events[0].fields, ["title", "priority"]);
      assertNoValues(events[0]);
    });

    test("read tools are not audited", async () => {
      await asAlice.callTool("todos_read", { id: aliceTodo });
      await asAlice.callTool("todos_list", {});
      assert.equal(events.length, 0);
    });
  });

  describe("through getMCPTools()", () => {
    test("an AI SDK tool write: one event with surface ai", async () => {
      const tools = getMCPTools({ app: terreno, user: aliceCaller });
      const output = await execute(tools, "todos_create", { title: SECRET, priority: 2 });
      const id = (output.data as { id: string }).id;
      assert.ok(id, JSON.stringify(output));
      assert.equal(events.length, 1);
      const [event] = events;
      assert.equal(event.surface, "ai");
      assert.equal(event.operation, "todos_create");
      assert.equal(event.action, "create");
      assert.equal(event.documentId, id);
      assert.equal(event.userId, alice.userId);
      assert.equal(event.outcome, "success");
      assert.deepEqual(event.fields, ["title", "priority"]);
      assertNoValues(event);
    });

    test("context-bound tools report to the app they came from", async () => {
      const tools = getMCPTools({ app: terreno });
      const run = tools.todos_delete?.execute;
      assert.ok(run);
      const output = (await run(
        { id: aliceTodo },
        {
          ...execOptions,
          context: { user: toUser(await User.findById(bob.userId).orFail()) },
        },
      )) as Record<string, unknown>;
      assert.ok(output.error, JSON.stringify(output));
      assert.equal(events.length, 1);
      assert.equal(events[0].surface, "ai");
      assert.equal(events[0].action, "delete");
      assert.equal(events[0].outcome, "not_found");
    });
  });

  describe("the Mongo sink and GET /audit", () => {
    test("stores events, without values", async () => {
      const stored = await audit.model.countDocuments({ model: "Todo" });
      assert.ok(stored > 5, `stored ${stored}`);
      const raw = await audit.model.collection.find({}).toArray();
      assert.ok(!JSON.stringify(raw).includes(SECRET), "no value was stored");
    });

    test("keeps events ttlDays: a TTL index, or pruning where the database refuses one", async () => {
      const retention = await audit.retention();
      const indexes = await audit.model.collection.indexes();
      const ttl = indexes.find((index) => index.name === "terreno_audit_ttl");
      if (retention === "ttl-index") {
        assert.equal(ttl?.expireAfterSeconds, 7 * 86_400, JSON.stringify(indexes));
        return; // MongoDB's TTL monitor deletes within a minute; not waited for here.
      }
      // FerretDB 1.x: "Index option expireAfterSeconds is not implemented yet".
      assert.equal(ttl, undefined);
      assert.equal(
        await audit.model.exists({ operation: "expired-event" }),
        null,
        "the first event pruned the expired one",
      );
      await audit.model.collection.insertOne({ ...expired });
      assert.equal(await audit.prune(), 1);
      assert.ok((await audit.model.countDocuments({})) > 5, "recent events stay");
    });

    test("403 for a non-admin, 200 newest first for an admin, filterable", async () => {
      await request(app).get("/audit").set(bearer(bob)).expect(403);
      await request(app).get("/audit").expect(401);
      await User.updateOne({ _id: alice.userId }, { $set: { admin: true } });
      try {
        const res = await request(app).get("/audit").set(bearer(alice)).expect(200);
        const data = res.body.data as Array<AuditEvent & { id: string; timestamp: string }>;
        assert.ok(data.length > 5);
        const times = data.map((event) => Date.parse(event.timestamp));
        assert.deepEqual(
          times,
          [...times].sort((a, b) => b - a),
          "newest first",
        );

        const refused = await request(app)
          .get("/audit")
          .query({ outcome: "not_found", surface: "mcp", userId: bob.userId, model: "Todo" })
          .set(bearer(alice))
          .expect(200);
        assert.ok(refused.body.data.length >= 1);
        for (const event of refused.body.data) {
          assert.equal(event.outcome, "not_found");
          assert.equal(event.surface, "mcp");
          assert.equal(event.userId, bob.userId);
        }
        const since = new Date(Date.now() - 3_600_000);
        const recent = await request(app)
          .get("/audit")
          .query({ "timestamp[$gte]": since.toISOString() })
          .set(bearer(alice))
          .expect(200);
        assert.equal(
          recent.body.total,
          await audit.model.countDocuments({ timestamp: { $gte: since } }),
        );
        assert.ok(recent.body.total > 5);
        const one = await request(app).get(`/audit/${data[0].id}`).set(bearer(alice)).expect(200);
        assert.equal(one.body.data.id, data[0].id);
        await request(app).post("/audit").set(bearer(alice)).send({}).expect(405);
        await request(app).delete(`/audit/${data[0].id}`).set(bearer(alice)).expect(405);
      } finally {
        await User.updateOne({ _id: alice.userId }, { $set: { admin: false } });
      }
    });

    test("the audit log is no MCP tool", async () => {
      const client = await connectClient("v2-auto", server.url, alice.token);
      try {
        const names = (await client.listTools()).map((tool) => tool.name);
        assert.ok(names.length > 0);
        assert.ok(!names.some((name) => name.includes("audit")), names.join(", "));
      } finally {
        await client.close();
      }
    });
  });
});

describe("failing audit sinks", () => {
  for (const [kind, sink] of [
    [
      "throws",
      () => {
        throw new Error("sink down");
      },
    ],
    ["rejects", () => Promise.reject(new Error("sink down"))],
  ] as const) {
    test(`a sink that ${kind} is logged and the write still succeeds`, async () => {
      const { logger, errors: logged } = errorLogger();
      const app = new TerrenoApp({
        userModel: User,
        auth: { jwt: { secret: JWT_SECRET } },
        logger,
        onAudit: sink,
      })
        .register(modelRouter(Todo, todoOptions()))
        .build();
      const user = await signUp(app, "sink");
      const res = await request(app)
        .post("/todos")
        .set(bearer(user))
        .send({ title: "still saved" })
        .expect(201);
      assert.equal(res.body.data.title, "still saved");
      assert.equal(logged.length, 1);
      assert.match(logged[0].message ?? "", /audit sink failed/);
      assert.equal((logged[0].object.err as Error).message, "sink down");
      assert.equal(logged[0].object.model, "Todo");
    });
  }
});

describe("auditEventOf", () => {
  test("reads tokenId when the caller carries one, and copies the record", () => {
    const ctx: RequestContext = callContext(STANDALONE_SERVICES, {
      user: { id: "u1", tokenId: "pat_123" },
      transport: "mcp",
      headers: {},
      operation: "todos_delete",
    });
    const fields: string[] = [];
    const event = auditEventOf(
      { action: "delete", model: "Todo", documentId: "abc", fields, outcome: "success" },
      ctx,
      new Date(0),
    );
    assert.deepEqual(event, {
      timestamp: new Date(0),
      userId: "u1",
      tokenId: "pat_123",
      surface: "mcp",
      operation: "todos_delete",
      action: "delete",
      model: "Todo",
      documentId: "abc",
      outcome: "success",
      fields: [],
    });
    assert.notEqual(event.fields, fields);
  });
});
