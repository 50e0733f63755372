import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, beforeEach, describe, test } from "node:test";
import { metrics, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  InMemoryMetricExporter,
  MeterProvider,
  type MetricData,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import type { ModelMessage } from "ai";
import type { Express } from "express";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import { getMCPTools, getMCPToolsAsync } from "../../src/ai/index.js";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { toUser } from "../../src/auth/userPlugin.js";
import type { Logger } from "../../src/core/logger.js";
import { WorkspaceRole } from "../../src/core/workspace.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import {
  connectClient,
  type Listening,
  listen,
  type McpTestClient,
} from "../helpers/mcpClients.js";
import { createTodo } from "../helpers/mcpWire.js";
import { Food, Todo, User } from "../helpers/models.js";
import { foodOptions, JWT_SECRET, todoOptions } from "../helpers/restApp.js";

useTestDatabase("ops_telemetry");

const Ticket =
  mongoose.models.Ticket ??
  mongoose.model(
    "Ticket",
    new Schema({
      title: { type: String, default: "t" },
      workspaceId: { type: Schema.Types.ObjectId, ref: "Workspace", required: true },
    }),
  );

// The SDK this app would register, with in-memory exporters; removed again after the file.
const spanExporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(spanExporter)],
});
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const metricReader = new PeriodicExportingMetricReader({
  exporter: metricExporter,
  exportIntervalMillis: 3_600_000,
});
const meterProvider = new MeterProvider({ readers: [metricReader] });

const silent: Logger = { error: () => {}, warn: () => {}, info: () => {} };

function buildApp(options: { http?: boolean } = {}): TerrenoApp {
  return new TerrenoApp({
    userModel: User,
    auth: { jwt: { secret: JWT_SECRET } },
    logger: silent,
    ...(options.http === false ? { telemetry: { http: false } } : {}),
  })
    .register(modelRouter(Todo, todoOptions()))
    .prompt("hello", {
      description: "Says hello.",
      messages: () => [{ role: "user", content: "Hi" }],
    })
    .register(
      modelRouter(
        Food,
        foodOptions({
          mcp: { methods: ["list", "create"] },
          // A server fault: the tool call fails as a JSON-RPC error, not an isError result.
          preCreate: (body, req) => {
            if (body.name === "explode") throw new Error("hook fault");
            return { ...body, ownerId: req.user?.id };
          },
        }),
      ),
    );
}

/** Finished spans with this name; SimpleSpanProcessor exports as each span ends. */
async function spansNamed(name: string, count = 1): Promise<ReadableSpan[]> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const found = spanExporter.getFinishedSpans().filter((span) => span.name === name);
    if (found.length >= count) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const names = spanExporter.getFinishedSpans().map((span) => span.name);
  assert.fail(`no span named "${name}" among ${JSON.stringify(names)}`);
}

async function collectMetrics(): Promise<MetricData[]> {
  await metricReader.forceFlush();
  const exported = metricExporter.getMetrics().at(-1);
  return (exported?.scopeMetrics ?? [])
    .filter((scope) => scope.scope.name === "terreno-mcp")
    .flatMap((scope) => scope.metrics);
}

describe("OpenTelemetry", () => {
  let app: Express;
  let server: Listening;
  let alice: TestUser;
  let bob: TestUser;
  let aliceTodo: string;
  let terreno: TerrenoApp;

  before(async () => {
    assert.ok(trace.setGlobalTracerProvider(tracerProvider));
    assert.ok(metrics.setGlobalMeterProvider(meterProvider));
    terreno = buildApp();
    app = terreno.build();
    server = await listen(app);
    alice = await signUp(app, "alice");
    bob = await signUp(app, "bob");
    aliceTodo = await createTodo(app, alice, "traced");
  });
  after(async () => {
    await server.close();
    trace.disable();
    metrics.disable();
    await tracerProvider.shutdown();
    await meterProvider.shutdown();
  });
  beforeEach(() => spanExporter.reset());

  describe("REST", () => {
    test("a request span is named after its route, with HTTP attributes", async () => {
      await request(app).get(`/todos/${aliceTodo}`).set(bearer(alice)).expect(200);
      const [span] = await spansNamed("GET /todos/:id");
      assert.equal(span.kind, SpanKind.SERVER);
      assert.equal(span.attributes["http.request.method"], "GET");
      assert.equal(span.attributes["http.route"], "/todos/:id");
      assert.equal(span.attributes["http.response.status_code"], 200);
      assert.equal(span.attributes["error.type"], undefined);
      assert.equal(span.status.code, SpanStatusCode.UNSET);

      await request(app).get("/todos").set(bearer(alice)).expect(200);
      const [list] = await spansNamed("GET /todos");
      assert.equal(list.attributes["http.route"], "/todos");
    });

    test("an error answer sets error.type to its code; only 5xx marks the span as failed", async () => {
      await request(app)
        .patch(`/todos/${aliceTodo}`)
        .set(bearer(bob))
        .send({ title: "mine now" })
        .expect(404);
      const [span] = await spansNamed("PATCH /todos/:id");
      assert.equal(span.attributes["http.response.status_code"], 404);
      assert.equal(span.attributes["error.type"], "not_found");
      assert.equal(span.attributes["terreno.error.code"], "not_found");
      assert.equal(span.status.code, SpanStatusCode.UNSET);

      await request(app).post("/foods").set(bearer(bob)).send({ name: "explode" }).expect(500);
      const [fault] = await spansNamed("POST /foods");
      assert.equal(fault.attributes["error.type"], "internal");
      assert.equal(fault.status.code, SpanStatusCode.ERROR);
    });

    test("an unmatched path has no route: the span is named after the method", async () => {
      await request(app).get("/nowhere/at/all").expect(404);
      const [span] = await spansNamed("GET");
      assert.equal(span.attributes["http.route"], undefined);
      assert.equal(span.attributes["error.type"], "not_found");
    });
  });

  describe("MCP tool calls", () => {
    let asAlice: McpTestClient;
    before(async () => {
      asAlice = await connectClient("v2-auto", server.url, alice.token);
    });
    after(() => asAlice.close());

    test("a tool call span follows the MCP semantic conventions", async () => {
      const result = await asAlice.callTool("todos_list", {});
      assert.equal(result.isError, undefined);
      const [span] = await spansNamed("tools/call todos_list");
      assert.equal(span.kind, SpanKind.SERVER);
      assert.deepEqual(
        {
          method: span.attributes["mcp.method.name"],
          tool: span.attributes["gen_ai.tool.name"],
          operation: span.attributes["gen_ai.operation.name"],
          surface: span.attributes["terreno.surface"],
          error: span.attributes["error.type"],
        },
        {
          method: "tools/call",
          tool: "todos_list",
          operation: "execute_tool",
          surface: "mcp",
          error: undefined,
        },
      );
      assert.equal(span.status.code, SpanStatusCode.UNSET);
      // The HTTP request that carried it has its own span.
      await spansNamed("POST /mcp");
    });

    test("a prompt's get is traced as a prompt, not a tool", async () => {
      const res = await request(app)
        .post("/mcp")
        .set(bearer(alice))
        .set("Accept", "application/json, text/event-stream")
        .send({ jsonrpc: "2.0", id: 1, method: "prompts/get", params: { name: "hello" } });
      assert.equal(res.body.result.messages[0].content.text, "Hi");
      const [span] = await spansNamed("prompts/get hello");
      assert.deepEqual(
        {
          method: span.attributes["mcp.method.name"],
          prompt: span.attributes["gen_ai.prompt.name"],
          tool: span.attributes["gen_ai.tool.name"],
          surface: span.attributes["terreno.surface"],
        },
        { method: "prompts/get", prompt: "hello", tool: undefined, surface: "mcp" },
      );
    });

    test("a failing tool call carries its error code", async () => {
      const asBob = await connectClient("v1", server.url, bob.token);
      try {
        const result = await asBob.callTool("todos_update", { id: aliceTodo, title: "x" });
        assert.equal(result.isError, true);
      } finally {
        await asBob.close();
      }
      const [span] = await spansNamed("tools/call todos_update");
      assert.equal(span.attributes["error.type"], "not_found");
      assert.equal(span.attributes["terreno.error.code"], "not_found");
      assert.equal(span.attributes["rpc.response.status_code"], undefined);
      assert.equal(span.status.code, SpanStatusCode.ERROR);
    });

    test("a fault that leaves as a JSON-RPC error records its code too", async () => {
      await assert.rejects(asAlice.callTool("foods_create", { name: "explode" }));
      const [span] = await spansNamed("tools/call foods_create");
      assert.equal(span.attributes["error.type"], "internal");
      assert.equal(span.attributes["rpc.response.status_code"], "-32603");
      assert.equal(span.status.code, SpanStatusCode.ERROR);
    });

    test("a refused /mcp request's HTTP span carries the refusal's code: 401, and a rate limit's 429", async () => {
      const limited = new TerrenoApp({
        userModel: User,
        auth: { jwt: { secret: JWT_SECRET } },
        logger: silent,
        rateLimit: { toolCalls: { points: 1, duration: 60 } },
      })
        .register(modelRouter(Todo, todoOptions()))
        .build();
      const call = (id: number, token?: string) => {
        const req = request(limited)
          .post("/mcp")
          .set("Accept", "application/json, text/event-stream")
          .set("Content-Type", "application/json");
        if (token) req.set("Authorization", `Bearer ${token}`);
        return req.send({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "todos_list", arguments: {} },
        });
      };

      assert.equal((await call(1)).status, 401);
      const [unauthenticated] = await spansNamed("POST /mcp");
      assert.equal(unauthenticated.attributes["http.response.status_code"], 401);
      assert.equal(unauthenticated.attributes["error.type"], "unauthenticated");

      spanExporter.reset();
      assert.equal((await call(2, alice.token)).status, 200);
      const refused = await call(3, alice.token);
      assert.equal(refused.status, 429, JSON.stringify(refused.body));
      assert.equal(refused.body.error.data.error.code, "rate_limited");
      const [, limitedSpan] = await spansNamed("POST /mcp", 2);
      assert.equal(limitedSpan.attributes["http.response.status_code"], 429);
      assert.equal(limitedSpan.attributes["error.type"], "rate_limited");
      assert.equal(limitedSpan.attributes["terreno.error.code"], "rate_limited");
    });
  });

  test("getMCPTools(): the same tool span, INTERNAL, with the tool call id", async () => {
    const user = toUser(await User.findById(alice.userId).orFail());
    const tools = getMCPTools({ app: terreno, user });
    const run = tools.todos_read?.execute;
    assert.ok(run);
    const options = { toolCallId: "call-42", messages: [] as ModelMessage[], context: {} };
    await run({ id: aliceTodo }, options);
    const output = (await run({ id: "0123456789abcdef01234567" }, options)) as { error?: unknown };
    assert.ok(output.error);
    const [ok, failed] = await spansNamed("tools/call todos_read", 2);
    assert.equal(ok.kind, SpanKind.INTERNAL);
    assert.equal(ok.attributes["terreno.surface"], "ai");
    assert.equal(ok.attributes["gen_ai.tool.call.id"], "call-42");
    assert.equal(ok.attributes["mcp.method.name"], "tools/call");
    assert.equal(ok.attributes["gen_ai.operation.name"], "execute_tool");
    assert.equal(ok.attributes["error.type"], undefined);
    assert.equal(failed.attributes["error.type"], "not_found");
    assert.equal(failed.status.code, SpanStatusCode.ERROR);
  });

  test("duration histograms and the error counter are recorded", async () => {
    const recorded = await collectMetrics();
    const byName = (name: string) => {
      const metric = recorded.find((m) => m.descriptor.name === name);
      assert.ok(metric, `${name} among ${recorded.map((m) => m.descriptor.name).join(", ")}`);
      return metric;
    };

    const http = byName("http.server.request.duration");
    assert.equal(http.descriptor.unit, "s");
    const read = (http.dataPoints as DataPoint<Histogram>[]).find(
      (point) =>
        point.attributes["http.route"] === "/todos/:id" &&
        point.attributes["http.request.method"] === "GET",
    );
    assert.ok(read, JSON.stringify(http.dataPoints.map((p) => p.attributes)));
    assert.ok(read.value.count >= 1);
    assert.equal(read.attributes["http.response.status_code"], 200);

    const tools = byName("mcp.server.operation.duration");
    assert.equal(tools.descriptor.unit, "s");
    const failedUpdate = (tools.dataPoints as DataPoint<Histogram>[]).find(
      (point) =>
        point.attributes["gen_ai.tool.name"] === "todos_update" &&
        point.attributes["error.type"] === "not_found",
    );
    assert.ok(failedUpdate, JSON.stringify(tools.dataPoints.map((p) => p.attributes)));
    assert.equal(failedUpdate.attributes["mcp.method.name"], "tools/call");

    const errors = byName("terreno.errors");
    const toolErrors = (errors.dataPoints as DataPoint<number>[]).find(
      (point) =>
        point.attributes["terreno.surface"] === "mcp" &&
        point.attributes["terreno.operation"] === "todos_update" &&
        point.attributes["terreno.error.code"] === "not_found",
    );
    assert.equal(toolErrors?.value, 1, JSON.stringify(errors.dataPoints));
    const restErrors = (errors.dataPoints as DataPoint<number>[]).find(
      (point) =>
        point.attributes["terreno.surface"] === "rest" &&
        point.attributes["terreno.operation"] === "PATCH /todos/:id",
    );
    assert.equal(restErrors?.attributes["terreno.error.code"], "not_found");
  });

  test("spans name the workspace a call resolved (terreno.workspace.id), never the header as sent", async () => {
    const teams = new TerrenoApp({
      userModel: User,
      auth: { jwt: { secret: JWT_SECRET } },
      logger: silent,
      workspaces: true,
    })
      .register(modelRouter(Todo, todoOptions()))
      .register(
        modelRouter(Ticket, {
          workspace: "workspaceId",
          permissions: { list: [WorkspaceRole("viewer")], read: [WorkspaceRole("viewer")] },
          mcp: { methods: ["list"] },
        }),
      );
    const teamsApp = teams.build();
    const listening = await listen(teamsApp);
    try {
      const carol = await signUp(teamsApp, "carol");
      const directory = teams.workspaces;
      assert.ok(directory);
      const mine = String((await directory.Workspace.create({ name: "Carol's" }))._id);
      const other = String((await directory.Workspace.create({ name: "Not Carol's" }))._id);
      await directory.Membership.create({
        workspaceId: mine,
        userId: carol.userId,
        role: "viewer",
      });
      const workspaceOf = (span: ReadableSpan) => span.attributes["terreno.workspace.id"];

      spanExporter.reset();
      await request(teamsApp).get("/tickets").set(bearer(carol)).expect(200);
      await request(teamsApp)
        .get("/tickets")
        .set(bearer(carol))
        .set("X-Workspace-Id", mine)
        .expect(200);
      await request(teamsApp)
        .get("/tickets")
        .set(bearer(carol))
        .set("X-Workspace-Id", other)
        .expect(404);
      await request(teamsApp).get("/todos").set(bearer(carol)).expect(200);
      const listed = await spansNamed("GET /tickets", 3);
      assert.deepEqual(listed.map(workspaceOf), [mine, mine, undefined]);
      const [todos] = await spansNamed("GET /todos");
      assert.equal(workspaceOf(todos), undefined);

      spanExporter.reset();
      const client = await connectClient("v2-auto", listening.url, carol.token);
      try {
        const result = await client.callTool("tickets_list", {});
        assert.equal(result.isError, undefined, JSON.stringify(result.content));
        await client.callTool("todos_list", {});
      } finally {
        await client.close();
      }
      const [mcpSpan] = await spansNamed("tools/call tickets_list");
      assert.equal(workspaceOf(mcpSpan), mine);
      const [unscoped] = await spansNamed("tools/call todos_list");
      assert.equal(workspaceOf(unscoped), undefined);

      const user = toUser(await User.findById(carol.userId).orFail());
      const tools = await getMCPToolsAsync({ app: teams, user, workspaceId: mine });
      const run = tools.tickets_list?.execute;
      assert.ok(run);
      await run({}, { toolCallId: "call-ws", messages: [] as ModelMessage[], context: {} });
      const aiSpans = await spansNamed("tools/call tickets_list", 2);
      const aiSpan = aiSpans.find((span) => span.attributes["gen_ai.tool.call.id"] === "call-ws");
      assert.ok(aiSpan);
      assert.equal(workspaceOf(aiSpan), mine);
    } finally {
      await listening.close();
    }
  });

  test("telemetry: {http: false} leaves HTTP spans to another instrumentation; tool spans stay", async () => {
    const quiet = buildApp({ http: false }).build();
    const listening = await listen(quiet);
    try {
      await request(quiet).get(`/todos/${aliceTodo}`).set(bearer(alice)).expect(200);
      const client = await connectClient("v2-auto", listening.url, alice.token);
      try {
        await client.callTool("todos_list", {});
      } finally {
        await client.close();
      }
      await spansNamed("tools/call todos_list");
      const http = spanExporter
        .getFinishedSpans()
        .filter((span) => span.attributes["http.request.method"] !== undefined);
      assert.deepEqual(
        http.map((span) => span.name),
        [],
      );
    } finally {
      await listening.close();
    }
  });
});

test("the core stays transport-free: no Express, MCP SDK, ai or OpenTelemetry import", () => {
  const root = path.resolve(import.meta.dirname, "../../src/core");
  const files = fs
    .readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"));
  assert.ok(files.length > 10);
  for (const file of files) {
    const source = fs.readFileSync(path.join(root, file), "utf8");
    const imports = [...source.matchAll(/from\s+"([^"]+)"/g)].map((match) => match[1]);
    for (const specifier of imports) {
      assert.ok(
        !/^(express|@modelcontextprotocol\/|ai$|ai\/|@opentelemetry\/)/.test(specifier),
        `src/core/${file} imports ${specifier}`,
      );
    }
  }
});
