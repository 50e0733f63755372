// The consumer smoke test: the packed terreno-mcp in a new app, against the testing helper's
// database: sign-up, REST CRUD, MCP with an official client, getMCPTools with generateText, and
// one chat approval round trip. Run by `npm test` in the app (node's test runner).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  generateText,
  isStepCount,
  readUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
} from "ai";
import { connectDatabase, type RunningServer, type TerrenoApp } from "terreno-mcp";
import { getMCPTools, mcpToolApproval, mcpToolsContext } from "terreno-mcp/ai";
import { createTestDatabase, type TestDatabase } from "terreno-mcp/testing";
import { buildApp } from "../src/app.js";
import { Project, Task } from "../src/models.js";
import { connectMcp, MCP_CLIENT } from "./mcpClient.js";
import type { ToolResult } from "./mcpSession.js";
import { type Step, scriptedModel } from "./mockModel.js";

const JWT_SECRET = "consumer-smoke-secret-0123456789abcdef";

type Json = Record<string, unknown>;

let db: TestDatabase;
let app: TerrenoApp;
let server: RunningServer;
let token = "";
let userId = "";
/** The chat model's script; each test that chats sets it before posting. */
const chatSteps: Step[] = [];

async function call(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const res = await fetch(new URL(path, server.url), {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
}

/** A tool call's `structuredContent.data`, after checking the call succeeded. */
function resultData(result: ToolResult): unknown {
  assert.ok(!result.isError, JSON.stringify(result.content));
  assert.ok(result.structuredContent, "the result carries structuredContent");
  return result.structuredContent.data;
}

function data(reply: { body: Json }): Json {
  return reply.body.data as Json;
}

/** POST /chat as useChat does, read back as the UI message the client would hold. */
async function chat(
  messages: UIMessage[],
): Promise<{ chunks: UIMessageChunk[]; message?: UIMessage; conversationId: string }> {
  const res = await fetch(new URL("/chat", server.url), {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ id: "consumer-chat", messages }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  const chunks: UIMessageChunk[] = [];
  for (const line of (await res.text()).split("\n")) {
    if (line.startsWith("data: ") && line !== "data: [DONE]")
      chunks.push(JSON.parse(line.slice(6)));
  }
  const lastAssistant = messages.at(-1)?.role === "assistant" ? messages.at(-1) : undefined;
  let message: UIMessage | undefined;
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  for await (const state of readUIMessageStream({
    // readUIMessageStream continues the message it is given in place; the caller keeps its own.
    message: lastAssistant ? structuredClone(lastAssistant) : undefined,
    stream,
  }))
    message = state;
  return { chunks, message, conversationId: res.headers.get("x-conversation-id") ?? "" };
}

describe(`consumer app (${MCP_CLIENT})`, () => {
  before(async () => {
    db = await createTestDatabase("consumer");
    await connectDatabase(db.uri);
    app = buildApp({ jwtSecret: JWT_SECRET, chatModel: scriptedModel(chatSteps) });
    server = await app.start({ port: 0, handleSignals: false });
  });

  after(async () => {
    await server?.close();
    await db?.close();
  });

  test("sign-up returns a token", async () => {
    const res = await fetch(new URL("/auth/signup", server.url), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "ada@example.com", password: "correct horse", name: "Ada" }),
    });
    const body = (await res.json()) as { data: { token: string; userId: string } };
    assert.equal(res.status, 201, JSON.stringify(body));
    token = body.data.token;
    userId = body.data.userId;
    assert.ok(token && userId);
  });

  test("REST CRUD: create, list with a filter, read, merge patch, delete", async () => {
    const created = await call("POST", "/projects", {
      name: "Launch",
      meta: { color: "blue" },
      members: [{ user: userId, role: "owner" }],
      milestones: [{ title: "Beta", due: "2031-01-01" }],
      settings: { budget: 100 },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const project = data(created);
    assert.equal(project.status, "planned", "the enum's default");
    assert.deepEqual(project.settings, { visibility: "team", notifyOnChange: true, budget: 100 });
    assert.deepEqual(project.meta, { color: "blue" });
    const milestones = project.milestones as Json[];
    assert.equal(milestones[0]?.done, false);
    assert.equal(milestones[0]?.due, "2031-01-01T00:00:00.000Z");
    assert.equal(typeof milestones[0]?.id, "string");
    assert.equal(String(project.ownerId), userId, "preCreate set the owner");
    const id = String(project.id);

    await call("POST", "/projects", { name: "Archive", status: "done" });
    const listed = await call("GET", "/projects?status=planned&settings.visibility=team");
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(
      (listed.body.data as Json[]).map((p) => p.name),
      ["Launch"],
    );
    assert.equal(listed.body.total, 1);

    const read = await call("GET", `/projects/${id}`);
    assert.equal(read.status, 200);
    assert.equal(data(read).name, "Launch");

    const patched = await call("PATCH", `/projects/${id}`, {
      status: "active",
      settings: { budget: 250 },
      meta: { owner: "ada" },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(data(patched).status, "active");
    assert.deepEqual(
      data(patched).settings,
      { visibility: "team", notifyOnChange: true, budget: 250 },
      "a merge patch keeps the nested fields it does not name",
    );
    assert.equal((data(patched).meta as Json).owner, "ada");
    assert.equal((data(patched).milestones as Json[]).length, 1);

    const bad = await call("POST", "/projects", { name: "Bad", status: "nope" });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, "validation_failed");

    const task = await call("POST", "/tasks", {
      title: "Write the plan",
      project: id,
      assignee: userId,
      tags: ["docs"],
    });
    assert.equal(task.status, 201, JSON.stringify(task.body));
    const tasks = await call("GET", "/tasks?tags=docs");
    assert.equal(tasks.status, 200, JSON.stringify(tasks.body));
    const [first] = tasks.body.data as Json[];
    assert.ok(first, "the task is listed by its tag");
    assert.equal((first.project as Json).name, "Launch", "the project ref is populated");

    const doomed = await call("POST", "/projects", { name: "Doomed" });
    const doomedId = String(data(doomed).id);
    assert.equal((await call("DELETE", `/projects/${doomedId}`)).status, 204);
    assert.equal((await call("GET", `/projects/${doomedId}`)).status, 404);
  });

  test("an instance action on a subdocument array and a Map, over REST and MCP", async () => {
    const created = await call("POST", "/projects", {
      name: "Roadmap",
      milestones: [{ title: "Alpha" }, { title: "Beta" }],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = String(data(created).id);
    const [alpha, beta] = data(created).milestones as Json[];
    assert.ok(alpha && beta);

    const done = await call("POST", `/projects/${id}/complete_milestone`, {
      milestoneId: alpha.id,
    });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.deepEqual(data(done).meta, { lastMilestone: "Alpha" }, "set on a project with no meta");
    assert.deepEqual(
      (data(done).milestones as Json[]).map((m) => m.done),
      [true, false],
    );
    const missing = await call("POST", `/projects/${id}/complete_milestone`, {
      milestoneId: "0123456789abcdef01234567",
    });
    assert.equal(missing.status, 404, JSON.stringify(missing.body));

    const mcp = await connectMcp(new URL("/mcp", server.url), token);
    try {
      const viaTool = await mcp.callTool("projects_complete_milestone", {
        id,
        milestoneId: beta.id,
      });
      assert.deepEqual((resultData(viaTool) as Json).meta, { lastMilestone: "Beta" });
    } finally {
      await mcp.close();
    }
  });

  test("MCP: tools/list and tool calls with the official client", async () => {
    const mcp = await connectMcp(new URL("/mcp", server.url), token);
    try {
      const names = (await mcp.listTools()).map((t) => t.name).sort();
      for (const name of [
        "projects_create",
        "projects_delete",
        "projects_list",
        "projects_read",
        "projects_update",
        "tasks_list",
      ]) {
        assert.ok(names.includes(name), `${name} in ${names.join(", ")}`);
      }
      const created = await mcp.callTool("projects_create", {
        name: "Via MCP",
        settings: { visibility: "private" },
        meta: { source: "mcp" },
      });
      const project = resultData(created) as Json;
      assert.equal(project.status, "planned");
      assert.deepEqual(project.meta, { source: "mcp" });

      const listed = await mcp.callTool("projects_list", {
        filter: { "settings.visibility": "private" },
      });
      assert.deepEqual(
        (resultData(listed) as Json[]).map((p) => p.name),
        ["Via MCP"],
      );
      const updated = await mcp.callTool("projects_update", {
        id: project.id,
        milestones: [{ title: "GA" }],
      });
      const milestones = (resultData(updated) as Json).milestones as Json[];
      assert.equal(milestones[0]?.done, false, "the subdocument's default");

      const refused = await mcp.callTool("projects_create", { name: "x", status: "nope" });
      assert.equal(refused.isError, true);
    } finally {
      await mcp.close();
    }
  });

  let stored: { _id: unknown } | null = null;

  test("getMCPTools with generateText and the AI SDK's mock model", async () => {
    const me = { id: userId };
    const result = await generateText({
      model: scriptedModel([
        {
          tool: "projects_create",
          input: { name: "Via AI", members: [{ user: userId, role: "editor" }] },
        },
        { text: "Created it." },
      ]),
      tools: getMCPTools({ app, user: me }),
      prompt: "Create a project called Via AI",
      stopWhen: isStepCount(3),
    });
    assert.equal(result.text, "Created it.");
    const created = await Project.findOne({ name: "Via AI" }).lean();
    assert.ok(created, "the tool wrote the project");
    stored = created;
    assert.equal(created.members[0]?.role, "editor");
    assert.equal(String(created.ownerId), userId);
  });

  test("getMCPTools with the caller in toolsContext; toolApproval stops writes", async () => {
    const tools = getMCPTools({ app });
    const listed = await generateText({
      model: scriptedModel([
        { tool: "projects_list", input: { filter: { name: "Via AI" } } },
        { text: "Listed." },
      ]),
      tools,
      toolsContext: mcpToolsContext(tools, { id: userId }),
      toolApproval: mcpToolApproval(tools),
      prompt: "Find Via AI",
      stopWhen: isStepCount(3),
    });
    const [read] = listed.steps[0]?.toolResults ?? [];
    assert.ok(read, "the read-only tool ran without approval");
    assert.equal((read.output as { total?: number }).total, 1, "as the caller, on their own rows");

    const gated = await generateText({
      model: scriptedModel([{ tool: "projects_delete", input: { id: String(stored?._id) } }]),
      tools,
      toolsContext: mcpToolsContext(tools, { id: userId }),
      toolApproval: mcpToolApproval(tools),
      prompt: "Delete Via AI",
      stopWhen: isStepCount(3),
    });
    assert.ok(
      gated.content.some((part) => part.type === "tool-approval-request"),
      JSON.stringify(gated.content),
    );
    assert.ok(await Project.exists({ _id: stored?._id }), "nothing is deleted before approval");
  });

  test("chat: a write waits for approval, and the approved call runs once", async () => {
    const before = await Task.countDocuments();
    const project = await Project.findOne({ name: "Launch" }).lean();
    assert.ok(project);
    chatSteps.push(
      { tool: "tasks_create", input: { title: "Approved task", project: String(project._id) } },
      { text: "Task created." },
    );
    const ask: UIMessage = {
      id: "u-1",
      role: "user",
      parts: [{ type: "text", text: "Add a task" }],
    };
    const first = await chat([ask]);
    assert.ok(
      first.chunks.some((c) => c.type === "tool-approval-request"),
      JSON.stringify(first.chunks),
    );
    assert.equal(await Task.countDocuments(), before, "nothing runs before approval");

    const pending = first.message;
    assert.ok(pending);
    const answered: UIMessage = {
      ...pending,
      parts: pending.parts.map((part) =>
        "state" in part && part.state === "approval-requested"
          ? { ...part, state: "approval-responded", approval: { ...part.approval, approved: true } }
          : part,
      ),
    } as UIMessage;
    const second = await chat([ask, answered]);
    assert.ok(
      second.chunks.some((c) => c.type === "tool-output-available"),
      JSON.stringify(second.chunks),
    );
    assert.equal(await Task.countDocuments({ title: "Approved task" }), 1);

    // The same answer again is refused (409): the server's request was answered already.
    const again = await fetch(new URL("/chat", server.url), {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ id: "consumer-chat", messages: [ask, answered] }),
    });
    assert.equal(again.status, 409, await again.clone().text());
    assert.equal(await Task.countDocuments({ title: "Approved task" }), 1, "an approval runs once");
  });
});
